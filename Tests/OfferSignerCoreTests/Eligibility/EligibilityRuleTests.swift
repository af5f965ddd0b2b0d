import Foundation
import Testing
@testable import OfferSignerCore

@Suite struct EligibilityRuleTests {
    typealias T = EligibilityTestData

    @Test func unknownUser() throws {
        #expect(T.facts([], now: 400) == nil)
        let decision = T.evaluate(nil, now: 400)
        // Not lapsed, 0 paid days, no expiry, no storefront: fails. No redemption, no refund: passes.
        #expect(decision.failedCriteria
            == ["requireLapsed", "minPaidDays", "minDaysSinceExpiry", "maxDaysSinceExpiry", "storefronts"])
        #expect(decision.reason("requireLapsed")?.actual == .bool(false))
        #expect(decision.reason("minPaidDays")?.actual == .int(0))
        #expect(decision.reason("minDaysSinceExpiry")?.actual == .null)
        #expect(decision.reason("maxDaysSinceExpiry")?.actual == .null)
        #expect(decision.reason("storefronts")?.actual == .null)
        #expect(decision.reason("storefronts")?.message == "The storefront is unknown; this offer is for USA, CAN.")

        // An offer that asks nothing of the history is open to unknown users.
        let open = EligibilityCriteria(waitBetweenOffersDays: 30, maxRedemptionsPerUser: 1, excludeRefunded: true)
        #expect(T.evaluate(nil, T.rule(open), now: 400).eligible)
    }

    @Test func ruleWithoutCriteriaAdmitsEveryone() throws {
        let active = try #require(T.facts(T.monthly(from: 0, to: 420), now: 400))
        #expect(T.evaluate(active, T.rule(EligibilityCriteria(), startsAt: nil), now: 400).eligible)
        #expect(T.evaluate(nil, T.rule(EligibilityCriteria(requireLapsed: false, excludeRefunded: false)), now: 400).eligible)
    }

    @Test func beforeStartsAt() throws {
        let facts = T.facts(T.monthly(from: 0, to: 300), now: 400)
        let decision = T.evaluate(facts, T.rule(startsAt: 400.5), now: 400)
        #expect(decision.failedCriteria == ["startsAt"])
        let reason = try #require(decision.reason("startsAt"))
        #expect(reason.required == .string("2026-02-05T12:00:00Z"))
        #expect(reason.actual == .string("2026-02-05T00:00:00Z"))
        #expect(reason.message == "The offer starts at 2026-02-05T12:00:00Z.")
        #expect(T.evaluate(facts, T.rule(startsAt: 400), now: 400).eligible)
    }

    @Test func afterEndsAt() throws {
        let facts = T.facts(T.monthly(from: 0, to: 300), now: 400)
        #expect(T.evaluate(facts, T.rule(endsAt: 399), now: 400).failedCriteria == ["endsAt"])
        let atEnd = T.evaluate(facts, T.rule(endsAt: 400), now: 400)
        #expect(atEnd.failedCriteria == ["endsAt"])
        #expect(atEnd.reason("endsAt")?.required == .string("2026-02-05T00:00:00Z"))
        #expect(T.evaluate(facts, T.rule(endsAt: 400.01), now: 400).eligible)
    }

    @Test func disabled() throws {
        let facts = T.facts(T.monthly(from: 0, to: 300), now: 400)
        let decision = T.evaluate(facts, T.rule(enabled: false), now: 400)
        #expect(decision.failedCriteria == ["enabled"])
        #expect(decision.reason("enabled")?.required == .bool(true))
        #expect(decision.reason("enabled")?.actual == .bool(false))
    }

    @Test func everyFailureIsReportedInFieldOrder() throws {
        let history = T.monthly(from: 0, to: 60, storefront: "FRA") + [
            T.transaction("promo", from: 60, to: 90, revokedOn: 80, offerType: 2, offerId: T.offerId,
                          price: 4_990, storefront: "FRA"),
        ]
        let facts = try #require(T.facts(history, now: 100))
        #expect(facts.paidDays == 80 && facts.daysSinceExpiry == 20)
        let rule = T.rule(enabled: false, startsAt: 0, endsAt: 50)
        let decision = T.evaluate(facts, rule, now: 100)
        #expect(!decision.eligible)
        #expect(decision.failedCriteria == [
            "enabled", "endsAt", "minPaidDays", "minDaysSinceExpiry", "waitBetweenOffersDays",
            "maxRedemptionsPerUser", "excludeRefunded", "storefronts",
        ])
        #expect(decision.reason("minPaidDays")?.actual == .int(80))
        #expect(decision.reason("minDaysSinceExpiry")?.actual == .int(20))
        #expect(decision.reason("waitBetweenOffersDays")?.actual == .int(40))
        #expect(decision.reason("maxRedemptionsPerUser")?.actual == .int(1))
        #expect(decision.reason("storefronts")?.actual == .string("FRA"))
    }

    @Test func allThirteenCriteriaCanFailTogether() throws {
        let rule = T.rule(
            EligibilityCriteria(
                requireLapsed: true, includeBillingRetry: true, minPaidDays: 1_000, minDaysSinceExpiry: 1,
                maxDaysSinceExpiry: 1_000, waitBetweenOffersDays: 10, maxRedemptionsPerUser: 1, excludeRefunded: true,
                storefronts: [], expirationIntents: [3], appleWinBack: .require),
            enabled: false, startsAt: 500, endsAt: 100)
        let history = [
            T.transaction("sub", from: 390, to: 420),
            T.transaction("promo", from: 399, to: 429, revokedOn: 399.5, offerType: 2, offerId: T.offerId),
        ]
        let facts = try #require(T.facts(history, now: 400))
        #expect(facts.isActive && facts.isRefunded && facts.paidDays == 10)
        let decision = T.evaluate(facts, rule, now: 400)
        #expect(decision.failedCriteria == [
            "enabled", "startsAt", "endsAt", "requireLapsed", "minPaidDays", "minDaysSinceExpiry",
            "maxDaysSinceExpiry", "waitBetweenOffersDays", "maxRedemptionsPerUser", "excludeRefunded", "storefronts",
            "expirationIntents", "appleWinBack",
        ])
        #expect(decision.reason("storefronts")?.message == "The storefront is USA; this offer is for no storefront.")
    }
}
