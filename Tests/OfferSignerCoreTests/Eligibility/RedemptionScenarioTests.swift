import Foundation
import Testing
@testable import OfferSignerCore

/// Offer redemptions counted as Apple records them: one per run of consecutive periods of a
/// subscription under the same offer, dated at the start of the run.
@Suite struct RedemptionScenarioTests {
    typealias T = EligibilityTestData

    /// A pay-as-you-go promotional offer over three 30-day periods from `start`: three
    /// transactions, the first one bought by the customer when `purchased`.
    static func payAsYouGo(
        _ prefix: String, from start: Int, offerType: Int = 2, offerId: String = T.offerId, purchased: Bool? = false,
        ownership: String = "PURCHASED", original: String = "1000"
    ) -> [SubscriptionTransaction] {
        (0..<3).map { period in
            let reason = purchased.map { $0 && period == 0 ? "PURCHASE" : "RENEWAL" }
            return T.transaction(
                "\(prefix)\(period)", from: Double(start + 30 * period), to: Double(start + 30 * (period + 1)),
                offerType: offerType, offerId: offerId, discount: "PAY_AS_YOU_GO", price: 4_990, original: original,
                ownership: ownership, reason: reason)
        }
    }

    @Test func threePeriodPayAsYouGoOfferCountsOnce() throws {
        let history = T.monthly(from: 0, to: 180) + Self.payAsYouGo("promo", from: 180)
        let facts = try #require(T.facts(history, now: 400))
        #expect(facts.redemptionsByOffer == [T.offerId: 1])
        #expect(facts.lastOfferRedemptionDate == T.day(180))
        #expect(facts.paidDays == 270)

        let decision = T.evaluate(facts, now: 400)
        #expect(decision.failedCriteria == ["maxRedemptionsPerUser"])
        #expect(decision.reason("maxRedemptionsPerUser")?.actual == .int(1))
        #expect(decision.reason("maxRedemptionsPerUser")?.message == "Redeemed this offer 1 time; it may be redeemed at most 1 time.")
        var twice = T.winBackCriteria
        twice.maxRedemptionsPerUser = 2
        #expect(T.evaluate(facts, T.rule(twice), now: 400).eligible)
    }

    @Test func twoSeparateRedemptionsCountTwice() throws {
        let history = T.monthly(from: 0, to: 60) + Self.payAsYouGo("first", from: 60)
            + T.monthly(from: 150, to: 240) + Self.payAsYouGo("second", from: 240)
        let facts = try #require(T.facts(history, now: 400))
        #expect(facts.redemptionsByOffer == [T.offerId: 2])
        #expect(facts.lastOfferRedemptionDate == T.day(240))

        var criteria = T.winBackCriteria
        criteria.maxRedemptionsPerUser = 2
        let decision = T.evaluate(facts, T.rule(criteria), now: 400)
        #expect(decision.failedCriteria == ["maxRedemptionsPerUser"])
        #expect(decision.reason("maxRedemptionsPerUser")?.actual == .int(2))
        criteria.maxRedemptionsPerUser = 3
        #expect(T.evaluate(facts, T.rule(criteria), now: 400).eligible)
    }

    @Test func aNewPurchaseAfterALapseIsANewRedemptionOfTheSameOffer() throws {
        // Redeemed while subscribed (the offer begins at a renewal), lapsed, then bought the
        // same offer again: Apple marks the new purchase `PURCHASE`, its renewals `RENEWAL`.
        let history = T.monthly(from: 0, to: 120) + Self.payAsYouGo("first", from: 120)
            + Self.payAsYouGo("again", from: 400, purchased: true)
        let facts = try #require(T.facts(history, now: 600))
        #expect(facts.redemptionsByOffer == [T.offerId: 2])
        #expect(facts.lastOfferRedemptionDate == T.day(400))

        // Data without `transactionReason` can only go by the offer of the previous period.
        let unknownReasons = T.monthly(from: 0, to: 120) + Self.payAsYouGo("first", from: 120, purchased: nil)
            + Self.payAsYouGo("again", from: 400, purchased: nil)
        let older = try #require(T.facts(unknownReasons, now: 600))
        #expect(older.redemptionsByOffer == [T.offerId: 1])
        #expect(older.lastOfferRedemptionDate == T.day(120))
    }

    @Test func waitIsMeasuredFromTheStartOfTheLastRedemption() throws {
        let history = T.monthly(from: 0, to: 200) + Self.payAsYouGo("promo", from: 200, offerId: "spring")
        let rule = T.rule(EligibilityCriteria(waitBetweenOffersDays: 60))
        let facts = try #require(T.facts(history, now: 250))
        #expect(facts.lastOfferRedemptionDate == T.day(200))
        let decision = T.evaluate(facts, rule, now: 250)
        #expect(decision.failedCriteria == ["waitBetweenOffersDays"])
        #expect(decision.reason("waitBetweenOffersDays")?.actual == .int(50))
        #expect(decision.reason("waitBetweenOffersDays")?.message
            == "Took a promotional offer 50 days ago; this offer needs at least 60 days since the last one.")
        // 65 days after the redemption, 5 days into its third discounted period: eligible.
        #expect(T.evaluate(T.facts(history, now: 265), rule, now: 265).eligible)
    }

    @Test func winBackOfferRunsCountForTheWaitOnly() throws {
        let history = T.monthly(from: 0, to: 240) + Self.payAsYouGo("native", from: 240, offerType: 4, offerId: "wb1")
        let facts = try #require(T.facts(history, now: 290))
        #expect(facts.redemptionsByOffer.isEmpty)
        #expect(facts.lastOfferRedemptionDate == T.day(240))
        let rule = T.rule(EligibilityCriteria(waitBetweenOffersDays: 60, maxRedemptionsPerUser: 1))
        #expect(T.evaluate(facts, rule, now: 290).failedCriteria == ["waitBetweenOffersDays"])
        #expect(T.evaluate(T.facts(history, now: 300), rule, now: 300).eligible)
    }

    @Test func offerPeriodsSharedByAFamilyMemberAreNotTheirRedemptions() throws {
        let shared = T.monthly(from: 0, to: 120, original: "2000", prefix: "f", ownership: "FAMILY_SHARED")
            + Self.payAsYouGo("familyPromo", from: 120, ownership: "FAMILY_SHARED", original: "2000")
        let facts = try #require(T.facts(shared, now: 300))
        #expect(facts.redemptionsByOffer.isEmpty)
        #expect(facts.lastOfferRedemptionDate == nil)
    }

    @Test func redemptionsAreFoundWhateverTheOrderAndRepeats() {
        let history = T.monthly(from: 0, to: 60) + Self.payAsYouGo("first", from: 60)
            + T.monthly(from: 150, to: 240) + Self.payAsYouGo("second", from: 240)
        let expected = OfferRedemption.redemptions(in: history)
        #expect(expected.map(\.date) == [T.day(60), T.day(240)])
        #expect(expected.allSatisfy { $0.knownOfferType == .promotionalOffer && $0.offerIdentifier == T.offerId })
        #expect(T.facts(history.reversed() + history, now: 400) == T.facts(history, now: 400))
    }
}
