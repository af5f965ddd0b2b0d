import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore

/// A service wired in process over a temporary SQLite database, with Apple's test key as the
/// app's active signing key and one API token per role.
final class TestEnvironment {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let bundleId = "com.example.app"
    static let product = "com.example.app.pro_monthly"
    /// The second app of an environment made with `secondApp: true`.
    static let otherBundleId = "com.example.other"
    static let otherProduct = "com.example.other.plus_monthly"
    static let tokens: [Role: String] = [.client: "client-token", .marketing: "marketing-token", .auditor: "auditor-token", .admin: "admin-token"]
    /// The token of `client-app-key`, a client key shipped in apps (`"proof": "required"`).
    static let appToken = "client-app-token"

    let folder: URL
    let database: SQLiteDatabase
    let signatureLog: SQLiteSignatureLog
    let historyStore: SQLiteHistoryStore
    let retentionRequestStore: SQLiteRetentionRequestStore
    var now: Date

    // The parts the service is composed of (a test may replace any of them before it sends requests).
    var keyRing: KeyRing
    var appStore: AppStoreVerification
    var offers: any OfferStore
    var signatures: any SignatureLog
    var history: any SubscriptionHistoryStore
    /// Redemptions matched to signatures and holdout decisions; `history` keeps it up to date.
    var outcomes: any OutcomeStore
    var rules: any RuleStore
    var retentionRequests: any RetentionRequestStore
    var checkpoints: (any CheckpointStore)?
    var consents: any ConsentStore
    var checkpointer: AuditCheckpointer?
    var activity: OfferActivity
    var appStoreAPI: AppStoreAPIClients?
    var appStoreSync: (any AppStoreSyncStore)?
    var unknownUserLookup: UnknownUserLookup?
    /// Subscriptions linked to app account tokens at Apple.
    var links: any AppAccountTokenLinkStore
    var experiments: any ExperimentStore
    /// Webhooks and their outbox, written by the stores above in their own transactions.
    let webhookStore: SQLWebhookStore<SQLiteDatabase>
    /// The webhook URL rules of the admin API (private addresses allowed: the tests' receivers are local).
    var webhookPolicy = WebhookURLPolicy(allowPrivate: true)
    /// The background linker (`OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS=on`); nil: off.
    var linker: AppAccountTokenLinker?
    /// The App Store Connect catalogs, the scheduled interval their freshness counts from, and
    /// the sync behind `POST /v1/admin/catalog/sync` (nil: none, 503).
    var catalogStore: any CatalogStore
    var catalogSyncInterval: Int? = 3600
    var catalogSync: CatalogSync?
    /// Apple's retention message approvals, kept across requests (nil: each composition makes its own).
    var retentionMessageStates: RetentionMessageStates?
    var rateLimits = RateLimits.none
    var trustedProxies: Set<String> = []
    var integrityRuns = ConcurrencyGate(limit: 2)
    var clock: WallClock
    var metrics = Metrics()
    var logger = Logger.silent

    /// - Parameters:
    ///   - secondApp: also configure ``otherBundleId`` (appAppleId 5678), with its own key.
    ///   - environments: the App Store environments accepted (`OFFER_SIGNER_ENVIRONMENTS`).
    ///   - readers, auditReaders: the sizes of the serving and audit reader pools.
    ///   - webhookSecrets: the key the webhooks' secrets are sealed with in the database (nil: plain text).
    init(now: Date = Date(timeIntervalSince1970: 1_800_000_000), signatures: (any SignatureLog)? = nil,
         secondApp: Bool = false, environments: Set<String> = ["Production", "Sandbox"],
         readers: Int = 16, auditReaders: Int = 4, webhookSecrets: WebhookSecretSealer? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signer-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("testSigningKey.p8"),
                                         to: folder.appendingPathComponent("active.p8"))
        try P256PrivateKey.generate().pkcs8PEM.write(to: folder.appendingPathComponent("old.p8"), atomically: true, encoding: .utf8)
        try P256PrivateKey.generate().pkcs8PEM.write(to: folder.appendingPathComponent("other.p8"), atomically: true, encoding: .utf8)
        try P256PrivateKey.generate().pkcs8PEM.write(to: folder.appendingPathComponent("audit.p8"), atomically: true, encoding: .utf8)
        for name in ["active.p8", "old.p8", "other.p8", "audit.p8"] {
            chmod(folder.appendingPathComponent(name).path, 0o600)
        }
        try Self.keysFile(secondApp: secondApp).write(to: folder.appendingPathComponent("keys.json"))
        database = try SQLiteDatabase(path: folder.appendingPathComponent("db.sqlite").path, maxReaders: readers, maxAuditReaders: auditReaders)
        let outbox = WebhookOutbox()
        webhookStore = try SQLWebhookStore(database: database, outbox: outbox, secrets: webhookSecrets)
        signatureLog = try SQLiteSignatureLog(database: database, outbox: outbox)
        historyStore = SQLiteHistoryStore(database: database, outbox: outbox)
        retentionRequestStore = SQLiteRetentionRequestStore(database: database)
        links = SQLAppAccountTokenLinkStore(database: database, outbox: outbox)
        experiments = SQLExperimentStore(database: database, outbox: outbox)
        catalogStore = SQLCatalogStore(database: database)
        self.now = now
        let configuration = try KeyConfiguration.load(path: folder.appendingPathComponent("keys.json").path)
        let fixedNow = now
        let log = signatures ?? signatureLog
        let keyRing = KeyRing(configuration)
        let checkpoints = SQLiteCheckpointStore(database: database)
        self.keyRing = keyRing
        offers = try SQLiteOfferStore(database: database)
        self.signatures = log
        let outcomeStore = SQLiteOutcomeStore(database: database, outbox: outbox)
        outcomes = outcomeStore
        history = OutcomeTrackingHistoryStore(historyStore, outcomes: outcomeStore)
        rules = SQLiteRuleStore(database: database)
        retentionRequests = retentionRequestStore
        consents = SQLConsentStore(database: database, outbox: outbox)
        activity = OfferActivity(store: SQLiteOfferActivityStore(database: database), logger: .silent)
        appStore = try AppStoreVerification(roots: [TestAppStore.root], environments: environments, configuration: configuration)
        clock = .fixed(fixedNow)
        self.checkpoints = checkpoints
        checkpointer = AuditCheckpointer(log: log, store: checkpoints, keyRing: keyRing, clock: .fixed(fixedNow), logger: .silent,
                                         interval: .seconds(60))
    }

    deinit {
        signatureLog.close()
        historyStore.close()
        retentionRequestStore.close()
        try? FileManager.default.removeItem(at: folder)
    }

    var keysPath: String { folder.appendingPathComponent("keys.json").path }

    static func keysFile(apiKeys: [KeysFile.APIKeyEntry]? = nil, secondApp: Bool = false, auditKey: Bool = true) throws -> Data {
        var apps = [KeysFile.App(bundleId: bundleId, appAppleId: 1234, issuerId: "issuer-1", signingKeys: [
            KeysFile.SigningKeyEntry(keyId: "ACTIVEKEY1", privateKeyPath: "active.p8", active: true),
            KeysFile.SigningKeyEntry(keyId: "OLDKEY0001", privateKeyPath: "old.p8", active: false),
        ])]
        if secondApp {
            apps.append(KeysFile.App(bundleId: otherBundleId, appAppleId: 5678, issuerId: "issuer-2", signingKeys: [
                KeysFile.SigningKeyEntry(keyId: "OTHERKEY01", privateKeyPath: "other.p8", active: true),
            ]))
        }
        let file = KeysFile(
            apps: apps,
            apiKeys: apiKeys ?? Role.allCases.map {
                KeysFile.APIKeyEntry(name: "\($0.rawValue)-key", role: $0.rawValue, tokenSHA256: SHA256Digest.hex(Array(tokens[$0]!.utf8)))
            } + [KeysFile.APIKeyEntry(name: "client-app-key", role: "client", tokenSHA256: SHA256Digest.hex(Array(appToken.utf8)),
                                      proof: "required")],
            auditKey: auditKey ? KeysFile.AuditKeyEntry(keyId: "AUDITKEY01", privateKeyPath: "audit.p8") : nil)
        return try JSONEncoder().encode(file)
    }

    /// A database with room for only a few records beyond its schema (whatever the schema's
    /// size), to see what a full disk does.
    static func nearlyFullDatabase(at path: String) throws -> SQLiteDatabase {
        let schemaPages = try { () throws -> Int64 in
            let empty = try SQLiteDatabase(path: path)
            return try empty.write { db in try db.scalar("PRAGMA page_count") } ?? 0
        }()
        return try SQLiteDatabase(path: path, maxPageCount: Int(schemaPages) + 6)
    }

    /// The service composed of the parts as they are now.
    var composition: ServiceComposition {
        ServiceComposition(keyRing: keyRing, verification: appStore, stores: StoreSet(
            offers: offers, signatures: signatures, history: history, rules: rules, retentionRequests: retentionRequests,
            checkpoints: checkpoints, consents: consents, outcomes: outcomes, links: links, experiments: experiments, catalogs: catalogStore,
            webhooks: webhookStore, writerStatistics: database.writerStatistics), activity: activity, checkpointer: checkpointer,
            appStoreAPI: appStoreAPI, unknownUsers: unknownUserLookup, linker: linker, rateLimits: rateLimits, trustedProxies: trustedProxies, integrityRuns: integrityRuns,
            messageStates: retentionMessageStates, catalogs: catalogs, catalogSync: catalogSync, webhookPolicy: webhookPolicy, clock: clock, metrics: metrics,
            logger: logger)
    }

    /// The catalogs as the composition reads them (nothing cached between requests).
    var catalogs: AppStoreCatalogs {
        AppStoreCatalogs(store: catalogStore, syncInterval: catalogSyncInterval, clock: clock, cacheFor: .zero)
    }

    var router: Router<ServiceContext> { composition.router }

    /// The issuing pipeline over the parts as they are now.
    var issuer: OfferIssuer { composition.issuer }

    /// Sends a request through the whole middleware chain.
    func send(_ method: String, _ path: String, role: Role? = .client, json: String? = nil,
              query: [String: String] = [:], headers: HTTPHeaders = [:]) -> TestResponse {
        var headers = headers
        if let role { headers.set("Authorization", "Bearer \(Self.tokens[role]!)") }
        if json != nil, headers["Content-Type"] == nil { headers.set("Content-Type", "application/json") }
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array((json ?? "").utf8))
        return TestResponse(response: router.respond(to: request))
    }

    /// Stores an offer rule directly.
    @discardableResult
    func putOffer(_ rule: OfferRule) throws -> StoredOffer {
        try offers.put(rule, by: "test", at: now)
    }

    static func demoRule(_ offerId: String = "winback", eligibility: EligibilityCriteria = EligibilityCriteria(),
                         limits: OfferLimits = OfferLimits()) -> OfferRule {
        OfferRule(offerId: offerId, bundleId: bundleId, productIds: [product], eligibility: eligibility, limits: limits)
    }
}

/// A response with its JSON decoded.
struct TestResponse {
    let response: HTTPResponse

    var status: Int { response.status }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:] }
    var code: String? { json["code"] as? String }
    var text: String { String(decoding: response.body, as: UTF8.self) }
}
