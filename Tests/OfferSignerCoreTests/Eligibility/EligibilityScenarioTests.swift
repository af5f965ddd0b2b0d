import Foundation
import Testing
@testable import OfferSignerCore

/// A user's subscription history, turned into facts and evaluated against the win-back rule
/// of the README's example offer (lapsed, ≥ 180 paid days, expired 60–730 days ago, 60 days between offers,
/// one redemption, no refunds, USA or CAN).
@Suite struct EligibilityScenarioTests {
    typealias T = EligibilityTestData

    @Test func lapsedLongEnoughAfterEnoughPaidTimeIsEligible() throws {
        let facts = try #require(T.facts(T.monthly(from: 0, to: 300), now: 400))
        #expect(facts.isLapsed && !facts.isActive)
        #expect(facts.paidDays == 300)
        #expect(facts.daysSinceExpiry == 100)
        let decision = T.evaluate(facts, now: 400)
        #expect(decision.eligible)
        #expect(decision.reasons.isEmpty)
    }

    @Test func activeSubscriberFailsRequireLapsed() throws {
        let facts = try #require(T.facts(T.monthly(from: 0, to: 420), now: 400))
        #expect(facts.isActive && !facts.isLapsed)
        #expect(facts.daysSinceExpiry == nil)
        #expect(facts.paidDays == 400)
        let decision = T.evaluate(facts, now: 400)
        #expect(!decision.eligible)
        #expect(decision.failedCriteria == ["requireLapsed", "minDaysSinceExpiry", "maxDaysSinceExpiry"])
        let lapsed = try #require(decision.reason("requireLapsed"))
        #expect(lapsed.required == .bool(true) && lapsed.actual == .bool(false))
        #expect(decision.reason("minDaysSinceExpiry")?.actual == .null)
    }

    @Test func billingGracePeriodCountsAsActive() throws {
        let history = T.monthly(from: 0, to: 300)
        let grace = SubscriptionRenewalState(
            originalTransactionId: "1000", autoRenewStatus: 1, isInBillingRetryPeriod: true,
            gracePeriodExpiresDate: T.day(316), signedDate: T.day(300))
        let facts = try #require(T.facts(history, renewals: [grace], now: 305))
        #expect(facts.isActive)
        #expect(facts.daysSinceExpiry == nil)
        #expect(T.evaluate(facts, now: 305).failedCriteria == ["requireLapsed", "minDaysSinceExpiry", "maxDaysSinceExpiry"])

        // Once the grace period is over Apple goes on retrying (billing retry, not lapsed)
        // for at most 60 days after the expiry; then the user is lapsed.
        let retrying = try #require(T.facts(history, renewals: [grace], now: 316))
        #expect(!retrying.isActive && retrying.isInBillingRetry && !retrying.isLapsed)
        #expect(try #require(T.facts(history, renewals: [grace], now: 360)).isLapsed)
        // A newer renewal info without a grace period wins over the older one.
        let recovered = SubscriptionRenewalState(originalTransactionId: "1000", signedDate: T.day(303))
        #expect(try #require(T.facts(history, renewals: [recovered, grace], now: 305)).isLapsed)
        #expect(try #require(T.facts(history, renewals: [grace, recovered], now: 305)).isLapsed)
        // Renewal info of a subscription outside the group does not count.
        var elsewhere = grace
        elsewhere.originalTransactionId = "9999"
        #expect(try #require(T.facts(history, renewals: [elsewhere], now: 305)).isLapsed)
    }

    @Test func tooLittlePaidTime() throws {
        let facts = try #require(T.facts(T.monthly(from: 0, to: 90), now: 190))
        #expect(facts.paidDays == 90)
        let decision = T.evaluate(facts, now: 190)
        #expect(decision.failedCriteria == ["minPaidDays"])
        let reason = try #require(decision.reason("minPaidDays"))
        #expect(reason.required == .int(180) && reason.actual == .int(90))
        #expect(reason.message == "Paid 90 days; this offer needs at least 180.")
    }

    @Test func lapseTooRecent() throws {
        let facts = try #require(T.facts(T.monthly(from: 0, to: 300), now: 320.5))
        #expect(facts.daysSinceExpiry == 20)
        let decision = T.evaluate(facts, now: 320.5)
        #expect(decision.failedCriteria == ["minDaysSinceExpiry"])
        let reason = try #require(decision.reason("minDaysSinceExpiry"))
        #expect(reason.required == .int(60) && reason.actual == .int(20))
        #expect(reason.message == "Expired 20 days ago; this offer needs at least 60.")
    }

    @Test func lapseTooOld() throws {
        let facts = try #require(T.facts(T.monthly(from: 0, to: 300), now: 1_100))
        let decision = T.evaluate(facts, now: 1_100)
        #expect(decision.failedCriteria == ["maxDaysSinceExpiry"])
        let reason = try #require(decision.reason("maxDaysSinceExpiry"))
        #expect(reason.required == .int(730) && reason.actual == .int(800))
        // The bounds are inclusive.
        #expect(T.evaluate(T.facts(T.monthly(from: 0, to: 300), now: 1_030), now: 1_030).eligible)
        #expect(T.evaluate(T.facts(T.monthly(from: 0, to: 300), now: 360), now: 360).eligible)
    }

    @Test func offerAlreadyRedeemed() throws {
        let history = T.monthly(from: 0, to: 270) + [
            T.transaction("promo", from: 270, to: 300, offerType: 2, offerId: T.offerId, discount: "PAY_AS_YOU_GO", price: 4_990),
        ]
        let facts = try #require(T.facts(history, now: 400))
        #expect(facts.redemptionsByOffer == [T.offerId: 1])
        #expect(facts.lastOfferRedemptionDate == T.day(270))
        let decision = T.evaluate(facts, now: 400)
        #expect(decision.failedCriteria == ["maxRedemptionsPerUser"])
        let reason = try #require(decision.reason("maxRedemptionsPerUser"))
        #expect(reason.required == .int(1) && reason.actual == .int(1))
        // A limit of two still lets this user redeem it once more.
        var twice = T.winBackCriteria
        twice.maxRedemptionsPerUser = 2
        #expect(T.evaluate(facts, T.rule(twice), now: 400).eligible)
    }

    @Test func waitBetweenOffers() throws {
        // A win-back offer (type 4) and another promotional offer both count as redemptions,
        // but not as redemptions of this offer.
        let history = T.monthly(from: 0, to: 240) + [
            T.transaction("winback", from: 240, to: 270, offerType: 4, offerId: "wb1", price: 4_990),
            T.transaction("other", from: 280, to: 310, offerType: 2, offerId: "other_offer", price: 4_990),
        ]
        let facts = try #require(T.facts(history, now: 320))
        #expect(facts.lastOfferRedemptionDate == T.day(280))
        #expect(facts.redemptionsByOffer == ["other_offer": 1])
        var criteria = T.winBackCriteria
        criteria.minDaysSinceExpiry = nil
        let decision = T.evaluate(facts, T.rule(criteria), now: 320)
        #expect(decision.failedCriteria == ["waitBetweenOffersDays"])
        let reason = try #require(decision.reason("waitBetweenOffersDays"))
        #expect(reason.required == .int(60) && reason.actual == .int(40))
        #expect(T.evaluate(facts, T.rule(criteria), now: 340).eligible)
    }

    @Test func refundFailsExcludeRefundedAndEndsPaidTime() throws {
        let history = T.monthly(from: 0, to: 240) + [T.transaction("refunded", from: 240, to: 270, revokedOn: 250)]
        let facts = try #require(T.facts(history, now: 400))
        #expect(facts.isRefunded)
        #expect(facts.paidDays == 250)
        #expect(facts.latestEndDate == T.day(250))
        #expect(facts.daysSinceExpiry == 150)
        let decision = T.evaluate(facts, now: 400)
        #expect(decision.failedCriteria == ["excludeRefunded"])
        let reason = try #require(decision.reason("excludeRefunded"))
        #expect(reason.required == .bool(false) && reason.actual == .bool(true))

        var criteria = T.winBackCriteria
        criteria.excludeRefunded = false
        #expect(T.evaluate(facts, T.rule(criteria), now: 400).eligible)
    }

    @Test func revokedTransactionIsNotActive() throws {
        let history = T.monthly(from: 0, to: 240) + [T.transaction("refunded", from: 240, to: 270, revokedOn: 245)]
        let facts = try #require(T.facts(history, now: 250))
        #expect(facts.isLapsed)
        #expect(facts.paidDays == 245)
        #expect(facts.latestEndDate == T.day(245))
        #expect(facts.daysSinceExpiry == 5)
        // A revoked transaction never makes the user active, whatever its dates say.
        let revokedLater = T.monthly(from: 0, to: 240) + [T.transaction("refunded", from: 240, to: 270, revokedOn: 260)]
        #expect(try #require(T.facts(revokedLater, now: 250)).isLapsed)
    }

    @Test func storefrontOutsideList() throws {
        let history = T.monthly(from: 0, to: 270) + [T.transaction("moved", from: 270, to: 300, storefront: "FRA")]
        let facts = try #require(T.facts(history, now: 400))
        #expect(facts.storefront == "FRA")
        let decision = T.evaluate(facts, now: 400)
        #expect(decision.failedCriteria == ["storefronts"])
        let reason = try #require(decision.reason("storefronts"))
        #expect(reason.required == .strings(["USA", "CAN"]) && reason.actual == .string("FRA"))
        #expect(reason.message == "The storefront is FRA; this offer is for USA, CAN.")

        var criteria = T.winBackCriteria
        criteria.storefronts = ["can", "fra"]
        #expect(T.evaluate(facts, T.rule(criteria), now: 400).eligible)
    }
}
