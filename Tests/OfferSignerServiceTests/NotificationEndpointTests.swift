import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

@Suite("POST /v1/notifications/appstore")
struct NotificationEndpointTests {
    static let day: TimeInterval = 86_400

    func post(_ env: TestEnvironment, _ signedPayload: String) -> TestResponse {
        env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": signedPayload]))
    }

    @Test("a verified notification is stored, its transaction feeds the history; a repeat changes nothing")
    func storeAndRepeat() throws {
        let env = try TestEnvironment()
        let transaction = TestAppStore.transaction(id: "t1", user: "User-A", purchased: env.now - 40 * Self.day,
                                                   expires: env.now - 10 * Self.day, signed: env.now - 10 * Self.day)
        let notification = TestAppStore.notification(uuid: "n-1", transaction: transaction, signed: env.now - Self.day)
        let first = post(env, notification)
        #expect(first.status == 200 && first.json["status"] as? String == "stored")
        let again = post(env, notification)
        #expect(again.status == 200 && again.json["status"] as? String == "duplicate")
        let history = try env.historyStore.history(userId: "user-a", bundleId: TestEnvironment.bundleId)
        #expect(history.transactions.map(\.transactionId) == ["t1"])
        #expect(history.transactions.first?.subscriptionGroupIdentifier == "group-1")
    }

    @Test("forged or foreign data is refused with 400 invalid_signed_data and nothing is stored", arguments: [
        "tampered", "wrongBundle", "wrongAppAppleId", "notJWS", "forgedNested", "missingBody",
    ])
    func refusals(kind: String) throws {
        let env = try TestEnvironment()
        let good = TestAppStore.transaction(id: "t9", user: "u9", purchased: env.now - 40 * Self.day, expires: env.now - 10 * Self.day,
                                            signed: env.now - Self.day)
        var payload: String
        switch kind {
        case "tampered":
            let parts = TestAppStore.notification(transaction: good, signed: env.now).split(separator: ".").map(String.init)
            payload = [parts[0], Base64URL.encode(Array(#"{"notificationType":"TEST","notificationUUID":"x","signedDate":1}"#.utf8)), parts[2]].joined(separator: ".")
        case "wrongBundle":
            let body: [String: Any] = ["notificationType": "TEST", "notificationUUID": "u", "signedDate": TestAppStore.ms(env.now),
                                       "data": ["bundleId": "com.evil", "appAppleId": 1234, "environment": "Production"]]
            payload = TestAppStore.sign(body)
        case "wrongAppAppleId":
            payload = TestAppStore.notification(transaction: good, signed: env.now, appAppleId: 999)
        case "notJWS":
            payload = "not-a-jws"
        case "forgedNested":
            let forgedKey = try P256PrivateKey.generate()
            var parts = good.split(separator: ".").map(String.init)
            let der = try forgedKey.signDER(Array("\(parts[0]).\(parts[1])".utf8))
            parts[2] = Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
            payload = TestAppStore.notification(transaction: parts.joined(separator: "."), signed: env.now)
        default:
            let response = env.send("POST", "/v1/notifications/appstore", role: nil, json: "{}")
            #expect(response.status == 400 && response.code == "invalid_request")
            return
        }
        let response = post(env, payload)
        #expect(response.status == 400, "\(kind)")
        #expect(response.code == "invalid_signed_data", "\(kind)")
        #expect(try env.historyStore.history(userId: "u9", bundleId: TestEnvironment.bundleId).transactions.isEmpty)
    }

    @Test("Apple's TEST notification fixture is refused here: its chain is not under the configured root")
    func appleFixtureUntrusted() throws {
        let env = try TestEnvironment()
        let fixture = try String(contentsOf: TestEnvironment.fixtures.appendingPathComponent("testNotification"), encoding: .utf8)
        let response = post(env, fixture.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(response.status == 400 && response.code == "invalid_signed_data")
        #expect((response.json["detail"] as? String)?.contains("trusted root") == true)
    }
}
