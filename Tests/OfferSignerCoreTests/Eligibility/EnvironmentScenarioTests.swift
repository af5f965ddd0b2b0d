import Foundation
import Testing
@testable import OfferSignerCore

/// Sandbox history never decides a production offer: facts come from one environment only.
@Suite struct EnvironmentScenarioTests {
    typealias T = EligibilityTestData

    static let sandboxOnly = T.monthly(from: 0, to: 300, original: "9000", prefix: "s", environment: .sandbox)

    @Test func userWithOnlySandboxHistoryIsUnknownToProduction() throws {
        #expect(T.facts(Self.sandboxOnly, now: 400) == nil)
        #expect(T.evaluate(T.facts(Self.sandboxOnly, now: 400), now: 400).failedCriteria
            == ["requireLapsed", "minPaidDays", "minDaysSinceExpiry", "maxDaysSinceExpiry", "storefronts"])

        let sandbox = try #require(T.facts(Self.sandboxOnly, now: 400, environment: .sandbox))
        #expect(sandbox.environment == .sandbox)
        #expect(sandbox.paidDays == 300)
        #expect(T.evaluate(sandbox, now: 400).eligible)
    }

    @Test func mixedHistoriesGiveEachEnvironmentItsOwnFacts() throws {
        let production = T.monthly(from: 0, to: 90) + [
            T.transaction("promo", from: 90, to: 120, offerType: 2, offerId: T.offerId, price: 4_990),
        ]
        let sandboxRefund = T.transaction("srefund", from: 300, to: 330, revokedOn: 305, revocationType: "REFUND_FULL",
                                          original: "9000", environment: .sandbox)
        // Sandbox renewal info for a subscription with the production one's ID changes nothing.
        let renewals = [
            T.renewal(signedOn: 120, intent: 3),
            T.renewal(signedOn: 130, graceUntil: 500, intent: 1, winBackOffers: ["wb"], environment: .sandbox),
        ]
        let history = production + Self.sandboxOnly + [sandboxRefund]

        let prod = try #require(T.facts(history, renewals: renewals, now: 400))
        #expect(prod.environment == .production && prod.isLapsed)
        #expect(prod.paidDays == 120 && prod.latestEndDate == T.day(120))
        #expect(prod.redemptionsByOffer == [T.offerId: 1] && !prod.isRefunded)
        #expect(prod.expirationIntent == 3 && prod.eligibleWinBackOfferIds.isEmpty)

        let sandbox = try #require(T.facts(history, renewals: renewals, now: 400, environment: .sandbox))
        #expect(sandbox.environment == .sandbox && sandbox.isLapsed)
        #expect(sandbox.paidDays == 305 && sandbox.latestEndDate == T.day(305))
        #expect(sandbox.redemptionsByOffer.isEmpty && sandbox.isRefunded)
        #expect(sandbox.expirationIntent == nil)

        #expect(T.evaluate(prod, now: 400).failedCriteria == ["minPaidDays", "maxRedemptionsPerUser"])
        #expect(T.evaluate(sandbox, now: 400).failedCriteria == ["excludeRefunded"])
    }
}
