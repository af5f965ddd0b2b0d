import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import Testing

/// Eligibility end to end: signed App Store data in through the notification endpoint, a
/// signature or a refusal with reasons out of the sign endpoint.
@Suite("Win-back eligibility from verified history")
struct EligibilityFlowTests {
    static let day: TimeInterval = 86_400
    static let criteria = EligibilityCriteria(requireLapsed: true, minPaidDays: 60, minDaysSinceExpiry: 30, maxDaysSinceExpiry: 365,
                                              waitBetweenOffersDays: 90, maxRedemptionsPerUser: 1, excludeRefunded: true,
                                              storefronts: ["USA", "CAN"])

    func environment() throws -> TestEnvironment {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(eligibility: Self.criteria))
        return env
    }

    func notify(_ env: TestEnvironment, _ transaction: String, renewal: String? = nil) {
        let response = env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(
            ["signedPayload": TestAppStore.notification(transaction: transaction, renewal: renewal, signed: env.now - Self.day)]))
        #expect(response.status == 200)
    }

    /// Three paid monthly periods ending `lapsedDays` ago.
    func paidMonths(_ env: TestEnvironment, user: String, lapsedDays: Double, storefront: String = "USA", prefix: String = "t") {
        let end = env.now - lapsedDays * Self.day
        for month in 0..<3 {
            let start = end - Double(3 - month) * 30 * Self.day
            notify(env, TestAppStore.transaction(id: "\(prefix)\(month)", original: "\(prefix)0", user: user, purchased: start,
                                                 expires: start + 30 * Self.day, storefront: storefront,
                                                 signed: env.now - Self.day + Double(month)))
        }
    }

    func sign(_ env: TestEnvironment, user: String) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
    }

    func failed(_ response: TestResponse) -> [String] {
        (response.json["reasons"] as? [[String: Any]] ?? []).compactMap { $0["criterion"] as? String }
    }

    @Test("lapsed long enough after enough paid time: signed")
    func eligible() throws {
        let env = try environment()
        paidMonths(env, user: "lapsed-user", lapsedDays: 100)
        let response = sign(env, user: "LAPSED-USER")
        #expect(response.status == 200, "\(response.json)")
        #expect(response.json["signature"] != nil)
    }

    @Test("an active subscriber is refused: requireLapsed, and both expiry bounds (no expiry yet)")
    func active() throws {
        let env = try environment()
        paidMonths(env, user: "active", lapsedDays: -20)
        let response = sign(env, user: "active")
        #expect(response.status == 403 && response.code == "not_eligible")
        #expect(failed(response) == ["requireLapsed", "minDaysSinceExpiry", "maxDaysSinceExpiry"])
    }

    @Test("a user in billing grace period counts as active")
    func gracePeriod() throws {
        let env = try environment()
        paidMonths(env, user: "grace", lapsedDays: 40)
        notify(env, TestAppStore.transaction(id: "t2", original: "t0", user: "grace", purchased: env.now - 70 * Self.day,
                                             expires: env.now - 40 * Self.day, signed: env.now - Self.day),
               renewal: TestAppStore.renewal(original: "t0", gracePeriodEnds: env.now + 5 * Self.day, signed: env.now - Self.day))
        #expect(failed(sign(env, user: "grace")).contains("requireLapsed"))
    }

    @Test("too little paid time, lapse too recent, lapse too old, wrong storefront: each named")
    func reasons() throws {
        let env = try environment()
        notify(env, TestAppStore.transaction(id: "s1", user: "short", purchased: env.now - 130 * Self.day,
                                             expires: env.now - 100 * Self.day, signed: env.now - Self.day))
        #expect(failed(sign(env, user: "short")) == ["minPaidDays"])
        paidMonths(env, user: "recent", lapsedDays: 10, prefix: "r")
        #expect(failed(sign(env, user: "recent")) == ["minDaysSinceExpiry"])
        paidMonths(env, user: "old", lapsedDays: 500, prefix: "o")
        #expect(failed(sign(env, user: "old")) == ["maxDaysSinceExpiry"])
        paidMonths(env, user: "abroad", lapsedDays: 100, storefront: "FRA", prefix: "f")
        let abroad = sign(env, user: "abroad")
        #expect(failed(abroad) == ["storefronts"])
        let reason = (abroad.json["reasons"] as? [[String: Any]])?.first
        #expect(reason?["actual"] as? String == "FRA")
        #expect(reason?["required"] as? [String] == ["USA", "CAN"])
    }

    @Test("an offer already redeemed: max redemptions and wait between offers")
    func redeemed() throws {
        let env = try environment()
        paidMonths(env, user: "redeemer", lapsedDays: 60)
        notify(env, TestAppStore.transaction(id: "p1", original: "t0", user: "redeemer", purchased: env.now - 80 * Self.day,
                                             expires: env.now - 50 * Self.day, offerType: 2, offerId: "winback",
                                             discount: "PAY_AS_YOU_GO", price: 4990, signed: env.now - Self.day))
        #expect(failed(sign(env, user: "redeemer")) == ["waitBetweenOffersDays", "maxRedemptionsPerUser"])
    }

    @Test("a refund is refused, whatever order the notifications arrive in, and repeats change nothing")
    func refundOutOfOrder() throws {
        let env = try environment()
        paidMonths(env, user: "refunded", lapsedDays: 100)
        let start = env.now - 130 * Self.day
        let revoked = TestAppStore.transaction(id: "t2", original: "t0", user: "refunded", purchased: start, expires: start + 30 * Self.day,
                                               revoked: start + 10 * Self.day, signed: env.now - 3600)
        let original = TestAppStore.transaction(id: "t2", original: "t0", user: "refunded", purchased: start, expires: start + 30 * Self.day,
                                                signed: env.now - 7200)
        notify(env, revoked)
        notify(env, original)  // older copy, arriving late: must not undo the refund
        notify(env, original)
        #expect(failed(sign(env, user: "refunded")).contains("excludeRefunded"))
    }

    @Test("a free trial does not count as paid time")
    func freeTrial() throws {
        let env = try environment()
        notify(env, TestAppStore.transaction(id: "ft", user: "trial", purchased: env.now - 190 * Self.day, expires: env.now - 100 * Self.day,
                                             offerType: 1, discount: "FREE_TRIAL", price: 0, signed: env.now - Self.day))
        let response = sign(env, user: "trial")
        #expect(failed(response) == ["minPaidDays"])
        #expect((response.json["reasons"] as? [[String: Any]])?.first?["actual"] as? Int == 0)
    }

    @Test("an unknown user is refused with the criteria that need history")
    func unknown() throws {
        let env = try environment()
        #expect(failed(sign(env, user: "stranger")) == ["requireLapsed", "minPaidDays", "minDaysSinceExpiry", "maxDaysSinceExpiry", "storefronts"])
    }

    @Test("GET /v1/users/{userId}/offers lists verdicts, best priority first; history shows the facts")
    func userViews() throws {
        let env = try environment()
        var open = TestEnvironment.demoRule("open_offer")
        open.priority = 50
        try env.putOffer(open)
        paidMonths(env, user: "viewer", lapsedDays: 10)
        let offers = env.send("GET", "/v1/users/viewer/offers").json["offers"] as? [[String: Any]] ?? []
        #expect(offers.map { $0["offerId"] as? String } == ["open_offer", "winback"])
        #expect(offers.map { $0["eligible"] as? Bool } == [true, false])
        let history = env.send("GET", "/v1/users/viewer/history", role: .marketing).json
        let group = (history["groups"] as? [[String: Any]])?.first
        #expect(group?["paidDays"] as? Int == 90)
        #expect(group?["daysSinceExpiry"] as? Int == 10)
        let transactions = history["transactions"] as? [[String: Any]] ?? []
        #expect(transactions.count == 3)
        #expect(transactions.first?["purchaseDate"] as? Int64 == TestAppStore.ms(env.now - 100 * Self.day), "Apple's units: milliseconds")
    }

    @Test("simulate counts known users eligible now, with a sample")
    func simulate() throws {
        let env = try environment()
        paidMonths(env, user: "a-eligible", lapsedDays: 100, prefix: "a")
        paidMonths(env, user: "b-eligible", lapsedDays: 200, prefix: "b")
        paidMonths(env, user: "c-recent", lapsedDays: 5, prefix: "c")
        let result = env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing).json
        #expect(result["known"] as? Int == 3)
        #expect(result["eligible"] as? Int == 2)
        #expect(result["sample"] as? [String] == ["a-eligible", "b-eligible"])
    }
}

extension EligibilityFlowTests {
    @Test("a product of the offer that nobody has bought yet is judged in the group of the offer's other products")
    func unboughtProduct() throws {
        let env = try TestEnvironment()
        var rule = TestEnvironment.demoRule(eligibility: EligibilityCriteria(maxRedemptionsPerUser: 1, excludeRefunded: true))
        rule.productIds = [TestEnvironment.product, "com.example.app.pro_yearly_2027"]
        try env.putOffer(rule)
        notify(env, TestAppStore.transaction(id: "r1", user: "refunded", purchased: env.now - 90 * Self.day, expires: env.now - 60 * Self.day,
                                             revoked: env.now - 70 * Self.day, signed: env.now - Self.day))
        let viaNewProduct = env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_yearly_2027", "offerId": "winback", "userId": "refunded"}"#)
        #expect(viaNewProduct.status == 403)
        #expect(failed(viaNewProduct) == ["excludeRefunded"])
    }
}
