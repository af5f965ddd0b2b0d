import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerPKCS11
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// Signing keys in a hardware module: SoftHSM2 tokens made by the tests (``SoftHSMFixture``),
/// keys generated inside them and never extractable, every signature checked against the
/// public key the module gives.
@Suite("Keys in a PKCS#11 module", .enabled(if: SoftHSMFixture.testable))
struct PKCS11SigningTests {
    static let user = RetentionEndpointTests.user

    func legacyPayload(_ body: [String: Any], keyId: String, user: String = user) throws -> [UInt8] {
        let nonce = try #require(body["nonce"] as? String)
        let timestamp = try #require((body["timestamp"] as? NSNumber)?.int64Value)
        return Array([TestEnvironment.bundleId, keyId, TestEnvironment.product, "winback", user, nonce, String(timestamp)]
            .joined(separator: "\u{2063}").utf8)
    }

    @Test("every signing path signs through the module and verifies under the module's public key: legacy, JWS, introductory eligibility, retention, the App Store Server API's JWT, audit checkpoints")
    func everySigningPath() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let retention = RetentionEndpointTests()
        let (env, _) = try retention.lapsedSubscriber()
        let configuration = try hsm.use([hsm.signingKey("ACTIVEKEY1", object: "iap-1")], in: env)
        let app = try #require(configuration.apps[TestEnvironment.bundleId])
        guard case .pkcs11(_, _, let token, _) = app.activeKey.source else { Issue.record("not a PKCS#11 key"); return }
        #expect(token == "offers")
        let moduleKey = app.activeKey.publicKey
        let fileKey = try P256PrivateKey(pkcs8PEM: String(contentsOf: TestEnvironment.fixtures.appendingPathComponent("testSigningKey.p8"), encoding: .utf8)).publicKey
        #expect(moduleKey.spkiDER != fileKey.spkiDER)

        // Legacy: base64 DER over Apple's payload.
        let legacy = env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(Self.user)"}"#)
        #expect(legacy.status == 200, "\(legacy.text)")
        let legacySignature = try #require(legacy.json["signature"] as? String)
        let der = try #require(Data(base64Encoded: legacySignature))
        #expect(moduleKey.isValidSignature(derSignature: Array(der), of: try legacyPayload(legacy.json, keyId: "ACTIVEKEY1")))
        #expect(!fileKey.isValidSignature(derSignature: Array(der), of: try legacyPayload(legacy.json, keyId: "ACTIVEKEY1")))

        // JWS promotional offer: raw R‖S.
        let jws = env.send("POST", "/v1/offers/sign",
                           json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(Self.user)", "format": "jws"}"#)
        #expect(jws.status == 200, "\(jws.text)")
        let offerText = try #require(jws.json["jws"] as? String)
        let offerJWS = try #require(ServerSignedJWS(offerText))
        #expect(offerJWS.isValid(under: moduleKey) && offerJWS.claims.aud == "promotional-offer")

        // Introductory-offer eligibility.
        let introductory = env.send("POST", "/v1/offers/introductory-eligibility",
                                    json: #"{"productId": "\#(TestEnvironment.product)", "userId": "new-user", "transactionId": "2000000777"}"#)
        #expect(introductory.status == 200, "\(introductory.text)")
        let eligibilityText = try #require(introductory.json["jws"] as? String)
        let eligibility = try #require(ServerSignedJWS(eligibilityText))
        #expect(eligibility.isValid(under: moduleKey) && eligibility.format == .introductoryOfferEligibility)

        // A retention offer, asked for by the App Store.
        try retention.put(env, retention.offerRule())
        let answer = retention.ask(env)
        #expect(answer.status == 200, "\(answer.text)")
        let offer = try #require(answer.json["promotionalOffer"] as? [String: Any])
        let retentionText = try #require(offer["promotionalOfferSignatureV2"] as? String)
        let retentionJWS = try #require(ServerSignedJWS(retentionText))
        #expect(retentionJWS.isValid(under: moduleKey))

        // The audit trail verifies every record under the key, and a checkpoint is signed by the audit key in the token.
        let integrity = env.send("GET", "/v1/audit/integrity", role: .auditor, query: ["signatures": "true"])
        #expect(integrity.status == 200 && integrity.json["ok"] as? Bool == true, "\(integrity.text)")
        let auditKey = try #require(configuration.auditKey)
        guard case .pkcs11 = auditKey.source else { Issue.record("the audit key is not in the token"); return }
        let checkpoint = try #require(env.checkpointer?.checkpointIfMoved())
        #expect(checkpoint.isValid(under: auditKey.publicKey) && !checkpoint.isValid(under: moduleKey))

        // The App Store Server API accepts the JWT only under the module's key.
        for (publicKey, accepted) in [(moduleKey, true), (fileKey, false)] {
            let store = MockAppStore(jwt: MockAppStoreJWT(keyId: "ACTIVEKEY1", issuerId: "issuer-1", bundleId: TestEnvironment.bundleId,
                                                          publicKey: publicKey), environment: "Production")
            let server = try store.start()
            defer { server.stop() }
            let clients = try AppStoreAPIClients(configuration: configuration, options: AppStoreAPIClients.Options(
                environments: [.production], baseURL: server.baseURL, requestsPerSecond: 100, timeout: .seconds(5),
                retry: AppStoreAPIHarness.retry))
            let client = try clients.client(bundleId: TestEnvironment.bundleId, environment: .production)
            let result = Result { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: "4242") }
            switch result {
            case .failure(.transactionNotFound): #expect(accepted, "the mock accepted a JWT it should have refused")
            case .failure(.unauthorized): #expect(!accepted, "the mock refused the module-signed JWT")
            default: Issue.record("unexpected \(result)")
            }
        }
    }

    @Test("a token pulled out and put back is found again at the next signature; a module that cannot sign answers 503 signing_key_unavailable, never 500, without the PIN; a refused PIN is not tried again until a reload, which resumes signing")
    func tokenLossAndRecovery() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let configuration = try hsm.use([hsm.signingKey("ACTIVEKEY1", object: "iap-f", token: "fragile")], auditInToken: false, in: env)
        let moduleKey = try #require(configuration.apps[TestEnvironment.bundleId]).activeKey.publicKey
        let lines = LockedLines()
        env.logger = Logger(minimumLevel: .debug, write: { lines.append($0) })
        func sign(_ user: String) -> TestResponse {
            env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
        }
        func verifies(_ response: TestResponse, _ user: String) throws -> Bool {
            let text = try #require(response.json["signature"] as? String)
            let der = try #require(Data(base64Encoded: text))
            return moduleKey.isValidSignature(derSignature: Array(der), of: try legacyPayload(response.json, keyId: "ACTIVEKEY1", user: user))
        }
        let first = sign("u1")
        #expect(first.status == 200, "\(first.text)")
        #expect(try verifies(first, "u1"))

        try hsm.pullOutAndPutBack("fragile")
        let afterReinsertion = sign("u2")
        #expect(afterReinsertion.status == 200, "\(afterReinsertion.text)")
        #expect(try verifies(afterReinsertion, "u2"))

        // The token now refuses the service's PIN (its owner changed it), and every session is gone.
        let otherPIN = "other-" + hsm.pin
        try hsm.changePIN(of: "fragile", from: hsm.pin, to: otherPIN)
        try hsm.pullOutAndPutBack("fragile")
        let refused = sign("u3")
        #expect(refused.status == 503 && refused.code == "signing_key_unavailable", "\(refused.text)")
        #expect(refused.response.headers["Retry-After"] != nil)
        #expect(!refused.text.contains(hsm.pin) && !refused.text.contains(otherPIN))
        let jws = env.send("POST", "/v1/offers/sign",
                           json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "u3", "format": "jws"}"#)
        #expect(jws.status == 503 && jws.code == "signing_key_unavailable")
        #expect(try env.signatureLog.verifyIntegrity().ok)

        // A refused PIN is not tried again (an HSM locks a PIN after a few wrong attempts) until the keys file is loaded again.
        try hsm.changePIN(of: "fragile", from: otherPIN, to: hsm.pin)
        #expect(sign("u4").code == "signing_key_unavailable")
        try hsm.use([hsm.signingKey("ACTIVEKEY1", object: "iap-f", token: "fragile")], auditInToken: false, in: env)
        let resumed = sign("u4")
        #expect(resumed.status == 200, "\(resumed.text)")
        #expect(try verifies(resumed, "u4"))

        let log = lines.all.joined(separator: "\n")
        #expect(log.contains("CKR_PIN_INCORRECT"), "the log says why: \(log)")
        #expect(!log.contains(hsm.pin) && !log.contains(otherPIN))
    }

    @Test("serve refuses to start, naming the keys file and the fault, on a wrong PIN, an unset PIN variable, a missing object and a missing module; no message shows the PIN", .enabled(if: OfferSignerBinary.testable))
    func startupErrors() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let env = try TestEnvironment()
        var file = try JSONDecoder().decode(KeysFile.self, from: TestEnvironment.keysFile())
        let cases: [(String, KeysFile.SigningKeyEntry, [String: String], String)] = [
            ("wrong-pin", hsm.signingKey("K1", object: "iap-1"), [SoftHSMFixture.pinVariable: "wrong-" + hsm.pin], "CKR_PIN_INCORRECT"),
            ("no-pin", hsm.signingKey("K1", object: "iap-1"), [:], "the PIN's environment variable \(SoftHSMFixture.pinVariable) (pinEnv) is not set"),
            ("missing-object", hsm.signingKey("K1", object: "no-such-key"), [:], "the token has no private key matching pkcs11:token=offers;object=no-such-key"),
            ("missing-token", hsm.signingKey("K1", object: "iap-1", token: "gone"), [:], "no token present matches pkcs11:token=gone;object=iap-1 (tokens present: "),
            ("missing-module", KeysFile.SigningKeyEntry(keyId: "K1", pkcs11: "pkcs11:token=offers;object=iap-1", pkcs11Module: env.folder.appendingPathComponent("libnone.so").path,
                                                        pinEnv: SoftHSMFixture.pinVariable, active: true), [:], "cannot load the PKCS#11 module"),
            ("pin-in-uri", KeysFile.SigningKeyEntry(keyId: "K1", pkcs11: "pkcs11:token=offers;object=iap-1?pin-value=\(hsm.pin)", pkcs11Module: SoftHSMFixture.module,
                                                    pinEnv: SoftHSMFixture.pinVariable, active: true), [:], "the PIN never goes in the keys file"),
        ]
        for (name, entry, environment, fault) in cases {
            file.apps[0].signingKeys = [entry]
            let path = env.folder.appendingPathComponent("\(name).json").path
            try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: path))
            var variables = hsm.processEnvironment.merging(environment) { $1 }
            if name == "no-pin" { variables[SoftHSMFixture.pinVariable] = nil }
            let outcome = try CommandLineTests.run(["serve", "--keys", path, "--database", env.folder.appendingPathComponent("\(name).sqlite").path,
                                                    "--listen", "127.0.0.1:0"], environment: variables,
                                                   unsetting: name == "no-pin" ? [SoftHSMFixture.pinVariable] : [])
            #expect(outcome.status == 1, "\(name): \(outcome.errors)")
            #expect(outcome.errors.contains(path) && outcome.errors.contains("app com.example.app, key K1") && outcome.errors.contains(fault),
                    "\(name): \(outcome.errors)")
            #expect(!outcome.errors.contains(hsm.pin), "\(name) shows the PIN: \(outcome.errors)")
        }
    }

    @Test("keys check reports each key's kind, module and token and a test signature that verifies; dev-setup --pkcs11 makes a token whose keys file holds no PIN", .enabled(if: OfferSignerBinary.testable))
    func keysCheckAndDevSetup() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let env = try TestEnvironment()
        var file = try JSONDecoder().decode(KeysFile.self, from: TestEnvironment.keysFile())
        file.apps[0].signingKeys = [hsm.signingKey("HSMKEY0001", object: "iap-2"),
                                    KeysFile.SigningKeyEntry(keyId: "OLDKEY0001", privateKeyPath: "old.p8", active: false)]
        file.auditKey = hsm.auditKey
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: env.keysPath))
        let check = try CommandLineTests.run(["keys", "check", "--keys", env.keysPath], environment: hsm.processEnvironment)
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("kind: PKCS#11 pkcs11:token=offers;object=iap-2 in token 'offers' of module \(SoftHSMFixture.module) (SoftHSM"))
        #expect(check.output.contains("kind: file \(env.folder.appendingPathComponent("old.p8").path)"))
        #expect(check.output.contains("kind: PKCS#11 pkcs11:token=offers;object=audit"))
        #expect(check.output.components(separatedBy: "test signature: verifies").count == 4, "\(check.output)")
        #expect(!check.output.contains(hsm.pin) && !check.errors.contains(hsm.pin))

        let dev = env.folder.appendingPathComponent("dev")
        let setup = try CommandLineTests.run(["dev-setup", "--pkcs11", "--dir", dev.path, "--database", env.folder.appendingPathComponent("dev.sqlite").path])
        #expect(setup.status == 0, "\(setup.errors)")
        let pinLine = try #require(setup.output.split(separator: "\n").first { $0.contains("export OFFER_SIGNER_DEV_PIN=") })
        let pin = String(pinLine.split(separator: "'")[1])
        let confLine = try #require(setup.output.split(separator: "\n").first { $0.contains("export SOFTHSM2_CONF=") })
        let conf = String(confLine.split(separator: "=")[1])
        let keys = try String(contentsOf: dev.appendingPathComponent("keys.json"), encoding: .utf8)
        #expect(keys.contains("pkcs11:token=offer-signer-dev;object=iap-DEVKEY0001") && keys.contains("\"pinEnv\" : \"OFFER_SIGNER_DEV_PIN\""))
        #expect(!keys.contains(pin) && !keys.contains(".p8"))
        let devCheck = try CommandLineTests.run(["keys", "check", "--keys", dev.appendingPathComponent("keys.json").path],
                                                environment: ["SOFTHSM2_CONF": conf, "OFFER_SIGNER_DEV_PIN": pin])
        #expect(devCheck.status == 0 && devCheck.output.components(separatedBy: "test signature: verifies").count == 3, "\(devCheck.output)\(devCheck.errors)")
    }

    @Test("pkcs11: URIs: token, object and id attributes, percent-decoded; the PIN, unknown attributes and a URI naming no key are refused")
    func uris() throws {
        let uri = try PKCS11URI("pkcs11:token=My%20Token;object=iap%2Dkey;id=%01%A0;serial=42;type=private")
        #expect(uri.token == "My Token" && uri.object == "iap-key" && uri.id == [0x01, 0xa0] && uri.serial == "42")
        for bad in ["pkcs12:object=x", "pkcs11:token=t", "pkcs11:object=x?pin-value=1234", "pkcs11:object=x?module-path=/lib/x.so",
                    "pkcs11:object=x;object=y", "pkcs11:object=%zz", "pkcs11:object=x;colour=red", "pkcs11:object=x;type=public", "pkcs11:id="] {
            #expect(throws: PKCS11Error.self, "\(bad)") { try PKCS11URI(bad) }
        }
        let refusal = #expect(throws: PKCS11Error.self) { try PKCS11URI("pkcs11:object=x?pin-value=1234") }
        #expect(refusal.map { !$0.description.contains("1234") } == true, "the message repeats the PIN: \(String(describing: refusal))")
    }
}

/// Log lines written by a test's logger.
final class LockedLines: @unchecked Sendable { // @unchecked: `lines` only behind `lock`
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
