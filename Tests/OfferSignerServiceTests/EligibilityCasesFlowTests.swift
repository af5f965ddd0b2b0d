import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import Testing

/// The cases of issue 9, end to end: signed App Store data in through the notification or
/// import endpoint, a signature or a refusal naming the failed criteria out of the sign
/// endpoint, and the facts as the history endpoint shows them.
@Suite("Eligibility as Apple means it, end to end")
struct EligibilityCasesFlowTests {
    typealias Flow = AppStoreFlow

    func flow() throws -> AppStoreFlow { AppStoreFlow(env: try TestEnvironment()) }

    /// A promotional pay-as-you-go offer over three periods of subscription `original`, from day `from`.
    func payAsYouGo(_ flow: AppStoreFlow, _ prefix: String, original: String, user: String, from: Double) {
        for period in 0..<3 {
            let start = from + Double(30 * period)
            flow.notify(flow.period("\(prefix)\(period)", original: original, user: user, from: start, to: start + 30,
                                    offerType: 2, offerId: "winback", discount: "PAY_AS_YOU_GO", price: 4990))
        }
    }

    /// A full-price period of subscription `original`.
    func fullPrice(_ flow: AppStoreFlow, _ id: String, original: String, user: String, from: Double, reason: String = "RENEWAL") {
        flow.notify(flow.period(id, original: original, user: user, from: from, to: from + 30, reason: reason))
    }

    @Test("a three-period pay-as-you-go offer counts once, and the wait runs from the start of that redemption")
    func payAsYouGoCountsOnce() throws {
        let flow = try flow()
        fullPrice(flow, "s0", original: "s0", user: "payg", from: -400, reason: "PURCHASE")
        fullPrice(flow, "s1", original: "s0", user: "payg", from: -370)
        payAsYouGo(flow, "sp", original: "s0", user: "payg", from: -340)  // three offer periods, ended 250 days ago
        let facts = try #require(flow.facts("payg"))
        #expect(facts["redemptionsByOffer"] as? [String: Int] == ["winback": 1])
        #expect(facts["lastOfferRedemptionDate"] as? String == RFC3339.string(from: flow.at(-340)))

        // 340 days since the redemption began (280 since its last period): a 320-day wait is over.
        try flow.offer(EligibilityCriteria(waitBetweenOffersDays: 320, maxRedemptionsPerUser: 2))
        #expect(flow.sign("payg").status == 200)
        try flow.offer(EligibilityCriteria(waitBetweenOffersDays: 341))
        #expect(Flow.failed(flow.sign("payg")) == ["waitBetweenOffersDays"])
        try flow.offer(EligibilityCriteria(maxRedemptionsPerUser: 1))
        let once = flow.sign("payg")
        #expect(Flow.failed(once) == ["maxRedemptionsPerUser"])
        #expect(Flow.reason("maxRedemptionsPerUser", in: once)?["actual"] as? Int == 1)
    }

    @Test("two separate redemptions of the offer count twice")
    func twoRedemptions() throws {
        let flow = try flow()
        fullPrice(flow, "d0", original: "d0", user: "twice", from: -400, reason: "PURCHASE")
        payAsYouGo(flow, "da", original: "d0", user: "twice", from: -370)
        fullPrice(flow, "d4", original: "d0", user: "twice", from: -280)
        payAsYouGo(flow, "db", original: "d0", user: "twice", from: -250)
        #expect(flow.facts("twice")?["redemptionsByOffer"] as? [String: Int] == ["winback": 2])
        #expect(flow.facts("twice")?["lastOfferRedemptionDate"] as? String == RFC3339.string(from: flow.at(-250)))
        try flow.offer(EligibilityCriteria(maxRedemptionsPerUser: 2))
        let refused = flow.sign("twice")
        #expect(Flow.failed(refused) == ["maxRedemptionsPerUser"])
        #expect(Flow.reason("maxRedemptionsPerUser", in: refused)?["actual"] as? Int == 2)
        try flow.offer(EligibilityCriteria(maxRedemptionsPerUser: 3))
        #expect(flow.sign("twice").status == 200)
    }

    @Test("expirationIntents [3] admits a customer who declined a price increase and refuses one who cancelled")
    func expirationIntents() throws {
        let flow = try flow()
        try flow.offer(EligibilityCriteria(requireLapsed: true, expirationIntents: [3]))
        for (user, intent) in [("price-up", 3), ("cancelled", 1)] {
            flow.paidMonths(user, user: user, from: -190, count: 3)  // ended 100 days ago
            flow.notify(nil, renewal: TestAppStore.renewal(original: "\(user)0", signed: flow.at(-1),
                                                           extra: ["expirationIntent": intent, "autoRenewStatus": 0]))
        }
        #expect(flow.sign("price-up").status == 200)
        let cancelled = flow.sign("cancelled")
        #expect(Flow.failed(cancelled) == ["expirationIntents"])
        #expect(Flow.reason("expirationIntents", in: cancelled)?["actual"] as? Int == 1)
        #expect(Flow.reason("expirationIntents", in: cancelled)?["required"] as? [Int] == [3])
        #expect(flow.facts("price-up")?["expirationIntent"] as? Int == 3)
        let renewal = (flow.history("cancelled")["renewals"] as? [[String: Any]])?.first
        #expect(renewal?["expirationIntent"] as? Int == 1 && renewal?["environment"] as? String == "Production")
    }

    @Test("a subscriber in billing retry is not lapsed: refused by requireLapsed, admitted with includeBillingRetry")
    func billingRetry() throws {
        let flow = try flow()
        flow.paidMonths("br", user: "retrying", from: -100, count: 3)  // ended 10 days ago
        flow.notify(nil, renewal: TestAppStore.renewal(original: "br0", signed: flow.at(-9),
                                                       extra: ["isInBillingRetryPeriod": true, "expirationIntent": 2]))
        let facts = try #require(flow.facts("retrying"))
        #expect(facts["isInBillingRetry"] as? Bool == true && facts["isLapsed"] as? Bool == false && facts["isActive"] as? Bool == false)
        try flow.offer(EligibilityCriteria(requireLapsed: true))
        #expect(Flow.failed(flow.sign("retrying")) == ["requireLapsed"])
        try flow.offer(EligibilityCriteria(requireLapsed: true, includeBillingRetry: true))
        #expect(flow.sign("retrying").status == 200)
    }

    @Test("a transaction revoked because the customer upgraded is not a refund")
    func upgradeIsNotARefund() throws {
        let flow = try flow()
        try flow.offer(EligibilityCriteria(excludeRefunded: true))
        flow.paidMonths("up", user: "upgraded", from: -200, count: 2)
        flow.notify(flow.period("up2", original: "up0", user: "upgraded", from: -140, to: -110,
                                extra: ["revocationDate": TestAppStore.ms(flow.at(-125)), "isUpgraded": true]))
        #expect(flow.sign("upgraded").status == 200)
        let revoked = (flow.history("upgraded")["transactions"] as? [[String: Any]])?.first { $0["transactionId"] as? String == "up2" }
        #expect(revoked?["isUpgraded"] as? Bool == true)
        #expect(flow.facts("upgraded")?["isRefunded"] as? Bool == false)
    }

    @Test("a family member with 8 shared months has paid nothing: minPaidDays 180 fails (imported history)")
    func familySharedMonths() throws {
        let flow = try flow()
        try flow.offer(EligibilityCriteria(requireLapsed: true, minPaidDays: 180))
        var months: [[String: String]] = []
        for month in 0..<8 {
            let start = Double(-300 + 30 * month)
            let jws = flow.period("f\(month)", original: "f0", user: "family-member", from: start, to: start + 30,
                                  reason: month == 0 ? "PURCHASE" : "RENEWAL", extra: ["inAppOwnershipType": "FAMILY_SHARED"])
            months.append(["signedTransactionInfo": jws])
        }
        try flow.importItems(months)
        let refused = flow.sign("family-member")
        #expect(Flow.failed(refused) == ["minPaidDays"], "lapsed all the same: the shared subscription counts as had")
        #expect(Flow.reason("minPaidDays", in: refused)?["actual"] as? Int == 0)
        let shown = (flow.history("family-member")["transactions"] as? [[String: Any]]) ?? []
        #expect(shown.count == 8 && shown.allSatisfy { $0["inAppOwnershipType"] as? String == "FAMILY_SHARED" })
    }

    @Test("excludeRefunded: a FAMILY_REVOKE revocation passes, a REFUND_PRORATED one fails")
    func revocationTypes() throws {
        let flow = try flow()
        try flow.offer(EligibilityCriteria(excludeRefunded: true))
        flow.paidMonths("fr", user: "left-family", from: -200, count: 2, extra: ["inAppOwnershipType": "FAMILY_SHARED"])
        flow.notify(flow.period("fr2", original: "fr0", user: "left-family", from: -140, to: -110,
                                extra: ["inAppOwnershipType": "FAMILY_SHARED", "revocationDate": TestAppStore.ms(flow.at(-130)),
                                        "revocationReason": 0, "revocationType": "FAMILY_REVOKE"]))
        flow.paidMonths("pr", user: "prorated", from: -200, count: 2)
        flow.notify(flow.period("pr2", original: "pr0", user: "prorated", from: -140, to: -110,
                                extra: ["revocationDate": TestAppStore.ms(flow.at(-130)), "revocationReason": 0,
                                        "revocationType": "REFUND_PRORATED", "revocationPercentage": 66_667]))
        #expect(flow.sign("left-family").status == 200)
        #expect(Flow.failed(flow.sign("prorated")) == ["excludeRefunded"])
        let refund = (flow.history("prorated")["transactions"] as? [[String: Any]])?.first { $0["transactionId"] as? String == "pr2" }
        #expect(refund?["revocationType"] as? String == "REFUND_PRORATED")
        #expect(refund?["revocationPercentage"] as? Int == 66_667)
        #expect(refund?["revocationReason"] as? Int == 0)
    }

    @Test("appleWinBack: exclude refuses users Apple offers a win-back offer, require admits only them")
    func appleWinBack() throws {
        let flow = try flow()
        for (user, offers) in [("apple-offers", ["apple_winback_1"]), ("apple-silent", [])] {
            flow.paidMonths(user, user: user, from: -190, count: 3)
            flow.notify(nil, renewal: TestAppStore.renewal(original: "\(user)0", signed: flow.at(-1),
                                                           extra: ["eligibleWinBackOfferIds": offers, "expirationIntent": 1]))
        }
        #expect(flow.facts("apple-offers")?["eligibleWinBackOfferIds"] as? [String] == ["apple_winback_1"])
        let renewal = (flow.history("apple-offers")["renewals"] as? [[String: Any]])?.first
        #expect(renewal?["eligibleWinBackOfferIds"] as? [String] == ["apple_winback_1"])
        try flow.offer(EligibilityCriteria(appleWinBack: .exclude))
        #expect(Flow.failed(flow.sign("apple-offers")) == ["appleWinBack"])
        #expect(flow.sign("apple-silent").status == 200)
        try flow.offer(EligibilityCriteria(appleWinBack: .require))
        #expect(flow.sign("apple-offers").status == 200)
        #expect(Flow.failed(flow.sign("apple-silent")) == ["appleWinBack"])
    }
}
