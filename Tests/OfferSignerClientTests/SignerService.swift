import AppStoreServerAPIMock
import Foundation
import OfferSignerCore

/// A real `offer-signer serve` (the debug build beside the tests) on a free port of
/// 127.0.0.1, over a temporary keys file (a generated signing key with an issuer ID, so both
/// formats sign), a temporary SQLite database and one token per role, plus `app-token`, a
/// client key shipped in apps (`"proof": "required"`). App Store data signed by the test
/// chain is trusted. Killed and its files removed when released.
final class SignerService {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/offer-signer")
    static let bundleId = TestSignedData.bundleId
    static let product = TestSignedData.product
    static let clientToken = "client-token", appToken = "app-token", adminToken = "admin-token", marketingToken = "marketing-token"

    let port: Int
    let folder: URL
    private let process = Process()

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts `serve` with `settings` added to (or replacing) the defaults, and waits up to
    /// 30 s until `/readyz` answers 200.
    init(settings: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signer-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["signing.p8", "audit.p8"] {
            let path = folder.appendingPathComponent(name).path
            _ = FileManager.default.createFile(atPath: path, contents: Data(try P256PrivateKey.generate().pkcs8PEM.utf8),
                                           attributes: [.posixPermissions: 0o600])
        }
        func apiKey(_ name: String, _ role: String, _ token: String, proof: String? = nil) -> [String: Any] {
            var key: [String: Any] = ["name": name, "role": role, "tokenSHA256": SHA256Digest.hex(Array(token.utf8))]
            if let proof { key["proof"] = proof }
            return key
        }
        let keys: [String: Any] = [
            "apps": [["bundleId": Self.bundleId, "appAppleId": TestSignedData.appAppleId, "issuerId": "issuer-1",
                      "signingKeys": [["keyId": "CLIENTKEY1", "privateKeyPath": "signing.p8", "active": true]]]],
            "apiKeys": [apiKey("backend", "client", Self.clientToken), apiKey("app", "client", Self.appToken, proof: "required"),
                        apiKey("marketing", "marketing", Self.marketingToken), apiKey("admin", "admin", Self.adminToken)],
            "auditKey": ["keyId": "AUDITKEY01", "privateKeyPath": "audit.p8"],
        ]
        try JSONSerialization.data(withJSONObject: keys).write(to: folder.appendingPathComponent("keys.json"))
        let chain = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AppStoreServerAPIMock/Fixtures/appstore-chain/root.pem")

        port = RawHTTP.freePort()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OFFER_SIGNER_") }
        environment.merge([
            "OFFER_SIGNER_KEYS": folder.appendingPathComponent("keys.json").path,
            "OFFER_SIGNER_DATABASE": folder.appendingPathComponent("db.sqlite").path,
            "OFFER_SIGNER_APPLE_ROOTS": chain.path, "OFFER_SIGNER_ENVIRONMENTS": "Production,Sandbox",
            "OFFER_SIGNER_LOG_LEVEL": "error", "OFFER_SIGNER_RATE_SIGN_PER_KEY": "off", "OFFER_SIGNER_RATE_SIGN_PER_USER": "off",
            "OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS": "off", "OFFER_SIGNER_LISTEN": "127.0.0.1:\(port)",
        ]) { _, new in new }
        environment.merge(settings) { _, new in new }
        let log = folder.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = Self.binary
        process.arguments = ["serve"]
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        let deadline = Date().addingTimeInterval(30)
        while RawHTTP.send(port: port, "GET", "/readyz", timeout: 2).status != 200 {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw StartFailed(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
            }
            usleep(50_000)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    struct StartFailed: Error, CustomStringConvertible {
        let log: String
        var description: String { "serve did not become ready:\n\(log)" }
    }

    /// `RawHTTP.send`, again while the service answers 503 (its connection cap counts a
    /// connection closed a moment ago until it notices), for at most 20 s.
    func setup(_ method: String, _ path: String, token: String? = nil, body: String? = nil) -> RawHTTP.Answer {
        let giveUp = Date().addingTimeInterval(20)
        while true {
            let answer = RawHTTP.send(port: port, method, path, token: token, body: body)
            if answer.status != 503 || Date() > giveUp { return answer }
            usleep(50_000)
        }
    }

    /// Opens and holds a connection, once the service counts it as the only one its cap
    /// (`OFFER_SIGNER_MAX_CONNECTIONS_PER_ADDRESS=1`) allows: another request is then answered
    /// 503. The connection is in the middle of a request (its line and a header sent, the
    /// head not finished), not idle, so a service that closes idle connections to make room
    /// keeps it until the request timeout. The caller closes it.
    func holdTheOnlyConnection() throws -> Int32 {
        let giveUp = Date().addingTimeInterval(30)
        let partial = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        while Date() < giveUp {
            let held = RawHTTP.connected(port: port)
            if held >= 0 { _ = partial.withUnsafeBytes { send(held, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            usleep(100_000)
            if held >= 0 && RawHTTP.send(port: port, "GET", "/healthz").status == 503 { return held }
            if held >= 0 { close(held) }
            usleep(100_000)
        }
        throw SetupFailed(what: "could not hold the only connection", answer: "")
    }

    /// Stores offer rule `offerId` for the test product (admin API), with `eligibility` and `limits`.
    func putOffer(_ offerId: String, priority: Int = 10, eligibility: [String: Any] = [:], limits: [String: Any] = [:]) throws {
        let rule: [String: Any] = ["offerId": offerId, "bundleId": Self.bundleId, "productIds": [Self.product], "enabled": true,
                                   "priority": priority, "eligibility": eligibility, "limits": limits]
        let answer = setup("PUT", "/v1/admin/offers/\(offerId)", token: Self.adminToken, body: TestSignedData.json(rule))
        guard answer.status == 200 || answer.status == 201 else { throw SetupFailed(what: "PUT offer \(offerId)", answer: answer.body) }
    }

    /// Creates or replaces placement `placementId` with `offerIds` in that order.
    func putPlacement(_ placementId: String, offerIds: [String]) throws {
        let body = TestSignedData.json(["bundleId": Self.bundleId, "offerIds": offerIds] as [String: Any])
        let answer = setup("PUT", "/v1/admin/placements/\(placementId)", token: Self.adminToken, body: body)
        guard answer.status == 200 || answer.status == 201 else { throw SetupFailed(what: "PUT placement \(placementId)", answer: answer.body) }
    }

    /// Creates experiment `experimentId` on `placement` with `arms` (`[armId, offerId or nil, weight]`) and starts it.
    func startExperiment(_ experimentId: String, placement: String, arms: [(String, String?, Double)]) throws {
        let body = TestSignedData.json([
            "bundleId": Self.bundleId, "placement": placement, "metric": "retained", "horizonDays": 30,
            "arms": arms.map { ["armId": $0.0, "offerId": $0.1 as Any? ?? NSNull(), "weight": $0.2] as [String: Any] },
        ] as [String: Any])
        let created = setup("PUT", "/v1/admin/experiments/\(experimentId)", token: Self.adminToken, body: body)
        guard created.status == 201 else { throw SetupFailed(what: "PUT experiment \(experimentId)", answer: created.body) }
        let started = setup("POST", "/v1/admin/experiments/\(experimentId)/start?bundleId=\(Self.bundleId)", token: Self.adminToken)
        guard started.status == 200 else { throw SetupFailed(what: "start experiment \(experimentId)", answer: started.body) }
    }

    /// Delivers a signed App Store Server Notification.
    func notify(_ signedPayload: String) throws {
        let answer = setup("POST", "/v1/notifications/appstore", body: TestSignedData.json(["signedPayload": signedPayload]))
        guard answer.status == 200 else { throw SetupFailed(what: "notification", answer: answer.body) }
    }

    /// The PEM public key of signing key `keyId`, as `GET /v1/keys` gives it.
    func publicKey(_ keyId: String) throws -> P256PublicKey {
        let keys = setup("GET", "/v1/keys", token: Self.clientToken).json["keys"] as? [[String: Any]] ?? []
        guard let pem = keys.first(where: { $0["keyId"] as? String == keyId })?["publicKeyPEM"] as? String else {
            throw SetupFailed(what: "GET /v1/keys has no \(keyId)", answer: "")
        }
        return try P256PublicKey(pem: pem)
    }

    struct SetupFailed: Error {
        let what: String
        let answer: String
    }
}
