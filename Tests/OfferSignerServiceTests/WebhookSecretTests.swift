import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// A webhook's secret is shown in the answer that makes it and nowhere after: no later answer,
/// log line, audit record or (with `OFFER_SIGNER_WEBHOOK_SECRETS_KEY`) database row holds it;
/// and the service refuses to start on secrets it cannot read.
@Suite("Webhooks: the secret shown once, encrypted at rest")
struct WebhookSecretTests {
    let hooks = WebhookTests()
    static let keyBytes = [UInt8](repeating: 0x5a, count: 32)
    static var sealer: WebhookSecretSealer { WebhookSecretSealer(key: AES256GCMKey(bytes: keyBytes)!) }

    /// The bytes of the SQLite database (its file and WAL) at `path`.
    static func databaseBytes(_ path: String) -> [UInt8] {
        ["", "-wal"].flatMap { suffix in FileManager.default.contents(atPath: path + suffix).map { [UInt8]($0) } ?? [] }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let bytes = Array(needle.utf8)
        guard haystack.count >= bytes.count else { return false }
        return (0...(haystack.count - bytes.count)).contains { start in haystack[start..<(start + bytes.count)].elementsEqual(bytes) }
    }

    @Test("after the answers that make them, no answer, log line, audit record, delivery or database row holds a secret")
    func shownOnce() throws {
        let env = try TestEnvironment(webhookSecrets: Self.sealer)
        try env.putOffer(TestEnvironment.demoRule())
        let capture = LogCapture()
        env.logger = Logger(minimumLevel: .debug) { capture.append($0) }
        let receiver = try WebhookReceiver { _, count in count == 1 ? MockHTTPResponse(status: 500) : MockHTTPResponse(status: 204) }
        let secret = try hooks.create(env, url: receiver.url)
        hooks.sign(env, user: "user-1")
        let clock = MovableClock()
        let worker = WebhookDeliveryWorker(store: env.webhookStore, policy: WebhookURLPolicy(allowPrivate: true, resolver: SystemHostResolver()),
                                           schedule: WebhookTests.fast, timeout: .seconds(10), clock: clock.wallClock, metrics: env.metrics,
                                           logger: Logger(minimumLevel: .debug) { capture.append($0) })
        while worker.runRound() > 0 {}
        clock.advance(60)
        while worker.runRound() > 0 {}
        #expect(receiver.requests.count == 2, "delivered after a failed try")
        let rotated = env.send("POST", "/v1/admin/webhooks/crm/rotate-secret", role: .admin)
        let newSecret = try #require(rotated.json["secret"] as? String)
        #expect(!rotated.text.contains(secret), "the rotated-out secret is not shown again")
        let replaced = env.send("PUT", "/v1/admin/webhooks/crm", role: .admin, json: #"{"url": "\#(receiver.url)", "events": ["offer.signed"]}"#)
        #expect(replaced.status == 200)
        let answers = [replaced, env.send("GET", "/v1/admin/webhooks/crm", role: .admin), env.send("GET", "/v1/admin/webhooks", role: .admin),
                       env.send("GET", "/v1/admin/webhooks/crm/changes", role: .admin),
                       env.send("GET", "/v1/admin/webhooks/crm/deliveries", role: .admin)]
        #expect(answers.allSatisfy { $0.status == 200 })
        for answer in answers {
            #expect(!answer.text.contains(secret) && !answer.text.contains(newSecret), "\(answer.text)")
        }
        let log = capture.text
        #expect(log.contains("rotate-secret") && log.contains("webhook"), "the requests were logged: \(log)")
        #expect(!log.contains(secret) && !log.contains(newSecret), "\(log)")
        let documents = try env.database.read { db in try db.select("SELECT COALESCE(document, '') FROM webhook_changes") { $0.text(0) } }
        #expect(documents.count == 3 && documents.allSatisfy { !$0.contains(secret) && !$0.contains(newSecret) })
        let bytes = Self.databaseBytes(env.folder.appendingPathComponent("db.sqlite").path)
        #expect(bytes.count > 10_000 && Self.contains(bytes, "secret-rotated"), "the database's bytes were read")
        #expect(!Self.contains(bytes, secret) && !Self.contains(bytes, newSecret), "the database holds the secrets encrypted only")
        #expect(!Self.contains(bytes, "whsec_"))
        // Both still sign: the new one and, for 24 hours, the old one.
        hooks.sign(env, user: "user-2")
        while worker.runRound() > 0 {}
        let header = try #require(receiver.requests.last?.header("Offer-Signer-Signature"))
        for key in [secret, newSecret] {
            #expect((try? WebhookSignature.verify(header: header, body: [UInt8](receiver.requests.last!.body), secret: key).get()) != nil)
        }
    }

    /// Settings for a `serve` on `database` in `env`'s folder.
    static func settings(_ env: TestEnvironment, database: String, key: String? = nil) -> ServiceSettings {
        var settings = ServiceSettings()
        settings.keys = env.keysPath
        settings.database = database
        settings.listen = "127.0.0.1:0"
        settings.appleRoots = [TestAppStore.folder.appendingPathComponent("root.pem").path]
        settings.webhookSecretsKey = key
        return settings
    }

    static func startupError(_ settings: ServiceSettings) -> String? {
        do {
            let runtime = try ServiceRuntime(settings: settings, logger: .silent)
            runtime.stop()
            return nil
        } catch {
            return error.description
        }
    }

    @Test("serve seals plain secrets once a key is configured, and refuses to start without it, with another key or a bad key file")
    func startup() throws {
        let env = try TestEnvironment()
        let database = env.folder.appendingPathComponent("serve.sqlite").path
        let keyFile = env.folder.appendingPathComponent("webhook-secrets.key").path
        try (Data(Self.keyBytes).base64EncodedString() + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        do {
            let stores = try Stores.open(.sqlite(path: database))
            defer { stores.close() }
            try stores.webhooks.put(StoredWebhook(id: "crm", url: "https://hooks.example.com/", events: [.offerSigned], bundleIds: nil, enabled: true,
                                                  secret: "whsec_made_before_the_key", createdAt: Date(), updatedAt: Date()),
                                    change: WebhookChange(webhookId: "crm", action: .created, actor: "admin", at: Date(), document: nil))
        }
        #expect(Self.startupError(Self.settings(env, database: database)) == nil, "plain secrets and no key: as before")
        let capture = LogCapture()
        let runtime = try ServiceRuntime(settings: Self.settings(env, database: database, key: keyFile),
                                         logger: Logger(minimumLevel: .info) { capture.append($0) })
        runtime.stop()
        #expect(capture.text.contains("webhook secrets encrypted in the database") && capture.text.contains(#""webhooks":1"#), "\(capture.text)")
        let stored = try SQLiteDatabase(path: database).read { db in try db.select("SELECT secret FROM webhooks") { $0.text(0) } }
        #expect(stored.count == 1 && stored[0].hasPrefix(WebhookSecretSealer.prefix), "\(stored)")
        let sealedStores = try Stores.open(.sqlite(path: database), webhookSecrets: Self.sealer)
        #expect(try sealedStores.webhooks.webhook(id: "crm")?.secret == "whsec_made_before_the_key")
        sealedStores.close()

        let keyless = try #require(Self.startupError(Self.settings(env, database: database)))
        #expect(keyless.contains("refusing to start") && keyless.contains("'crm'") && keyless.contains("OFFER_SIGNER_WEBHOOK_SECRETS_KEY"), "\(keyless)")
        let otherKeyFile = env.folder.appendingPathComponent("other.key").path
        try String(repeating: "ab", count: 32).write(toFile: otherKeyFile, atomically: true, encoding: .utf8)
        let other = try #require(Self.startupError(Self.settings(env, database: database, key: otherKeyFile)))
        #expect(other.contains("does not decrypt"), "\(other)")
        try "not a key".write(toFile: otherKeyFile, atomically: true, encoding: .utf8)
        let bad = try #require(Self.startupError(Self.settings(env, database: database, key: otherKeyFile)))
        #expect(bad.contains(otherKeyFile) && bad.contains("32 bytes"), "\(bad)")
        let missing = try #require(Self.startupError(Self.settings(env, database: database, key: otherKeyFile + ".gone")))
        #expect(missing.contains("cannot be read"), "\(missing)")
        #expect(Self.startupError(Self.settings(env, database: database, key: keyFile)) == nil, "the right key: starts")
    }

    @Test("the key file: base64 of 32 bytes or 64 hex digits, whitespace around ignored; anything else refused")
    func keyFileFormats() {
        #expect(WebhookSecretsKeyFile.key(" " + Data(Self.keyBytes).base64EncodedString() + "\n") != nil)
        #expect(WebhookSecretsKeyFile.key(String(repeating: "5A", count: 32)) != nil)
        #expect(WebhookSecretsKeyFile.key(Data(Self.keyBytes.dropLast()).base64EncodedString()) == nil)
        #expect(WebhookSecretsKeyFile.key(String(repeating: "5a", count: 31)) == nil)
        #expect(WebhookSecretsKeyFile.key(String(repeating: "zz", count: 32)) == nil)
        #expect(WebhookSecretsKeyFile.key("") == nil)
    }
}
