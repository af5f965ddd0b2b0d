import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OfferSignerCore
import Testing
@testable import OfferSignerApplication
@testable import OfferSignerService

@Suite("The service over a real socket")
struct ServiceRuntimeTests {
    /// Sends one request with URLSession and waits for the answer.
    static func request(_ url: URL, method: String = "GET", token: String? = nil, body: String? = nil) throws -> (Int, [String: Any], [AnyHashable: Any]) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.headers = (response as? HTTPURLResponse)?.allHeaderFields ?? [:]
            box.json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
            done.signal()
        }.resume()
        done.wait()
        return (box.status, box.json, box.headers)
    }

    final class Box: @unchecked Sendable {
        var status = 0
        var json: [String: Any] = [:]
        var headers: [AnyHashable: Any] = [:]
    }

    @Test("serve, sign over HTTP, verify; a restart keeps offers, history, the log and quotas")
    func endToEnd() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: 1)))
        var settings = ServiceSettings()
        settings.keys = env.keysPath
        settings.database = env.database.path
        settings.listen = "127.0.0.1:0"
        settings.appleRoots = [TestAppStore.folder.appendingPathComponent("root.pem").path]
        var runtime: ServiceRuntime? = try ServiceRuntime(settings: settings, logger: .silent)
        let base = URL(string: "http://127.0.0.1:\(runtime!.port)")!
        let (health, _, _) = try Self.request(base.appendingPathComponent("healthz"))
        #expect(health == 200)
        let (ready, readyBody, _) = try Self.request(base.appendingPathComponent("readyz"))
        #expect(ready == 200 && readyBody["database"] as? String == "ok")
        let (status, body, headers) = try Self.request(
            base.appendingPathComponent("v1/offers/sign"), method: "POST", token: TestEnvironment.tokens[.client],
            body: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "socket-user"}"#)
        #expect(status == 200)
        #expect(headers["X-Request-Id"] != nil || headers["x-request-id"] != nil)
        let nonce = try #require(body["nonce"] as? String)
        let timestamp = try #require((body["timestamp"] as? NSNumber)?.int64Value)
        let signatureText = try #require(body["signature"] as? String)
        let signature = try #require(Data(base64Encoded: signatureText))
        let payload = ["com.example.app", "ACTIVEKEY1", "com.example.app.pro_monthly", "winback", "socket-user", nonce, String(timestamp)]
            .joined(separator: "\u{2063}")
        let publicKey = try P256PublicKey(spkiDER: Array(Data(base64Encoded: SignEndpointTests.applePublicKey)!))
        #expect(publicKey.isValidSignature(derSignature: Array(signature), of: Array(payload.utf8)))
        let (metricsStatus, _, _) = try Self.request(base.appendingPathComponent("metrics"))
        #expect(metricsStatus == 200)
        let now = Date()
        let notification = TestAppStore.notification(transaction: TestAppStore.transaction(
            id: "rt1", user: "socket-user", purchased: now - 90 * 86_400, expires: now - 60 * 86_400, signed: now - 60), signed: now - 60)
        let (notified, _, _) = try Self.request(base.appendingPathComponent("v1/notifications/appstore"), method: "POST",
                                                body: TestAppStore.json(["signedPayload": notification]))
        #expect(notified == 200)
        runtime?.stop()
        runtime = nil

        let restarted = try ServiceRuntime(settings: settings, logger: .silent)
        defer { restarted.stop() }
        #expect(try restarted.stores.offers.offer(bundleId: TestEnvironment.bundleId, offerId: "winback") != nil)
        #expect(try restarted.stores.signatures.signature(nonce: nonce)?.record.userId == "socket-user")
        #expect(try restarted.stores.history.history(userId: "socket-user", bundleId: TestEnvironment.bundleId).transactions.count == 1)
        let (quota, _, retry) = try Self.request(
            URL(string: "http://127.0.0.1:\(restarted.port)/v1/offers/sign")!, method: "POST", token: TestEnvironment.tokens[.client],
            body: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "socket-user"}"#)
        #expect(quota == 429, "the daily quota survives the restart")
        #expect(retry["Retry-After"] != nil || retry["retry-after"] != nil)
    }

    @Test("reloading a valid keys file switches the active key; an invalid one is refused and the old stays")
    func reload() throws {
        let env = try TestEnvironment()
        var settings = ServiceSettings()
        settings.keys = env.keysPath
        settings.database = env.database.path
        settings.listen = "127.0.0.1:0"
        let runtime = try ServiceRuntime(settings: settings, logger: .silent)
        defer { runtime.stop() }
        let original = try String(contentsOfFile: env.keysPath, encoding: .utf8)
        let rotated = original.replacingOccurrences(of: "\"active\":true", with: "\"active\":#")
            .replacingOccurrences(of: "\"active\":false", with: "\"active\":true")
            .replacingOccurrences(of: "\"active\":#", with: "\"active\":false")
        #expect(rotated != original)
        try rotated.write(toFile: env.keysPath, atomically: true, encoding: .utf8)
        guard case .success = runtime.reloadKeys() else {
            Issue.record("a valid keys file was refused")
            return
        }
        #expect(runtime.keyRing.current.apps["com.example.app"]?.activeKey.keyId == "OLDKEY0001")
        try "{ broken".write(toFile: env.keysPath, atomically: true, encoding: .utf8)
        guard case .failure = runtime.reloadKeys() else {
            Issue.record("a broken keys file was accepted")
            return
        }
        #expect(runtime.keyRing.current.apps["com.example.app"]?.activeKey.keyId == "OLDKEY0001")
    }
}
