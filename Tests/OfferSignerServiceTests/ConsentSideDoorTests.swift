import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// Consent rescinded, without side doors: the transaction a request names is looked up, a
/// clearing is dated when it is made, and every rescinding can be cleared.
@Suite("Consent rescinded: no side doors")
struct ConsentSideDoorTests {
    static let minor = "5b0f3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"
    static let stranger = "0d6e2f1a-3b4c-4d5e-8f9a-1b2c3d4e5f6a"
    static let download = "704289572911"

    /// A minor's subscription (`sub0`…`sub2`) whose transactions name their app download, and
    /// a rescinding of it (`signed` ago).
    func rescindedMinor(appTransactionId: String = download, downloadInTransactions: Bool = true) throws -> TestEnvironment {
        let env = try TestEnvironment()
        AppStoreFlow(env: env).paidMonths("sub", user: Self.minor, from: -150, count: 3,
                                          extra: downloadInTransactions ? ["appTransactionId": appTransactionId] : [:])
        try env.putOffer(TestEnvironment.demoRule())
        #expect(rescind(env, appTransactionId: appTransactionId).status == 200)
        return env
    }

    func rescind(_ env: TestEnvironment, uuid: String = "rescind-1", appTransactionId: String = download, signed: Date? = nil) -> TestResponse {
        let payload = TestAppStore.sign([
            "notificationType": "RESCIND_CONSENT", "notificationUUID": uuid, "version": "2.0",
            "signedDate": TestAppStore.ms(signed ?? env.now - 60),
            "appData": ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production",
                        "signedAppTransactionInfo": TestAppStore.appTransaction(created: env.now - 3600, appTransactionId: appTransactionId)],
        ])
        return env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": payload]))
    }

    func sign(_ env: TestEnvironment, user: String, transactionId: String? = nil, format: String = "jws") -> TestResponse {
        var body: [String: Any] = ["productId": TestEnvironment.product, "offerId": "winback", "userId": user, "format": format]
        body["transactionId"] = transactionId
        return env.send("POST", "/v1/offers/sign", json: TestAppStore.json(body))
    }

    func introductory(_ env: TestEnvironment, user: String, transactionId: String) -> TestResponse {
        env.send("POST", "/v1/offers/introductory-eligibility", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "userId": user, "transactionId": transactionId]))
    }

    @Test("naming the minor's app download, original or later transaction beside another userId is refused consent_rescinded")
    func namedTransaction() throws {
        let env = try rescindedMinor()
        #expect(sign(env, user: Self.stranger).status == 200, "a request naming nothing of the minor is no one's business")
        for named in [Self.download, "sub0", "sub2"] {
            let intro = introductory(env, user: Self.stranger, transactionId: named)
            #expect(intro.status == 403 && intro.code == "consent_rescinded", "introductory, \(named): \(intro.text)")
            let jws = sign(env, user: Self.stranger, transactionId: named)
            #expect(jws.status == 403 && jws.code == "consent_rescinded", "jws, \(named): \(jws.text)")
        }
        // Found through the renewal info too, when the transactions name no app download.
        let renewalOnly = try rescindedMinor(downloadInTransactions: false)
        AppStoreFlow(env: renewalOnly).notify(nil, renewal: TestAppStore.renewal(original: "sub0", signed: renewalOnly.now - 120,
                                                                                 extra: ["appTransactionId": Self.download]))
        #expect(sign(renewalOnly, user: Self.stranger, transactionId: "sub1").code == "consent_rescinded")
        // Cleared: signed again.
        #expect(env.send("POST", "/v1/admin/consents/\(Self.download)/clear", role: .admin, json: #"{"reason": "ok"}"#).status == 200)
        #expect(introductory(env, user: Self.stranger, transactionId: Self.download).status == 200)
        #expect(sign(env, user: Self.stranger, transactionId: "sub2").status == 200)
    }

    @Test("a clearing is dated when it is made; a rescinding signed in the future counts from its receipt and swallows nothing")
    func clearingDatedWhenMade() throws {
        let env = try rescindedMinor()
        let future = rescind(env, uuid: "rescind-future", signed: env.now + 30 * 86_400)
        #expect(future.status == 200, "\(future.text)")
        let cleared = env.send("POST", "/v1/admin/consents/\(Self.download)/clear", role: .admin, json: #"{"reason": "ticket 1"}"#)
        #expect(cleared.status == 200, "\(cleared.text)")
        let clearing = try #require((cleared.json["cleared"] as? [[String: Any]])?.first)
        #expect(clearing["at"] as? String == RFC3339.string(from: env.now) && clearing["at"] as? String == clearing["recordedAt"] as? String,
                "\(clearing)")
        let events = try #require(env.send("GET", "/v1/admin/consents", role: .auditor).json["items"] as? [[String: Any]])
        let futureEvent = try #require(events.first { $0["notificationUUID"] as? String == "rescind-future" })
        #expect(futureEvent["at"] as? String == RFC3339.string(from: env.now), "clamped to its receipt: \(futureEvent)")
        #expect(sign(env, user: Self.minor).status == 200)

        // A genuine rescinding after the clearing is in force (a clearing dated 30 days ahead swallowed it).
        #expect(rescind(env, uuid: "rescind-genuine", signed: env.now + 60).status == 200)
        #expect(sign(env, user: Self.minor).code == "consent_rescinded")
    }

    @Test("a clearing stored dated in the future, or a rescinding, counts from when it was recorded")
    func storedFutureDates() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let oldClearing = ConsentEvent(id: 2, appTransactionId: "a", environment: .production, bundleId: "b", action: .clear,
                                       at: now + 86_400 * 30, recordedAt: now)
        let genuine = ConsentEvent(id: 3, appTransactionId: "a", environment: .production, bundleId: "b", action: .rescind,
                                   at: now + 60, recordedAt: now + 60)
        #expect(ConsentEvent.inForce([oldClearing, genuine]).map(\.id) == [3])
    }

    @Test("a rescinding whose appTransactionId is empty, over 256 characters or not ASCII is cleared by its event ID")
    func clearedByEventId() throws {
        for weird in ["", String(repeating: "7", count: 300), "70428957291\u{0663}", "a b"] {
            let env = try rescindedMinor(appTransactionId: weird)
            let events = try env.consents.events(bundleId: nil, afterId: 0, limit: 10)
            let event = try #require(events.first, "recorded: \(weird.debugDescription)")
            #expect(try env.consents.rescinded(appTransactionIds: [weird], environment: .production).count == 1, "\(weird.debugDescription)")
            #expect(env.send("POST", "/v1/admin/consents/events/\(event.id)/clear", role: .marketing, json: #"{"reason": "x"}"#).status == 403)
            #expect(env.send("POST", "/v1/admin/consents/events/0/clear", role: .admin, json: #"{"reason": "x"}"#).code == "invalid_request")
            #expect(env.send("POST", "/v1/admin/consents/events/99/clear", role: .admin, json: #"{"reason": "x"}"#).status == 404)
            let cleared = env.send("POST", "/v1/admin/consents/events/\(event.id)/clear", role: .admin,
                                   json: #"{"reason": "guardian consented again"}"#)
            #expect(cleared.status == 200, "\(weird.debugDescription): \(cleared.text)")
            #expect(try env.consents.rescinded(appTransactionIds: [weird], environment: .production).isEmpty, "\(weird.debugDescription)")
            let clearing = try #require(try env.consents.events(bundleId: nil, afterId: event.id, limit: 10).first)
            #expect(clearing.action == .clear && clearing.appTransactionId == weird)
            let again = env.send("POST", "/v1/admin/consents/events/\(event.id)/clear", role: .admin, json: #"{"reason": "x"}"#)
            #expect(again.status == 404, "no longer rescinded: \(again.text)")
            let clearingItself = env.send("POST", "/v1/admin/consents/events/\(clearing.id)/clear", role: .admin, json: #"{"reason": "x"}"#)
            #expect(clearingItself.code == "invalid_request", "\(clearingItself.text)")
        }
    }
}
