import Foundation
import Testing
@testable import OfferSignerCore

/// Redemption runs and their outcomes: refunded, retained, churned, inOffer, and revenue.
@Suite struct RedemptionOutcomeTests {
    typealias T = EligibilityTestData

    /// Three pay-as-you-go periods of a promotional offer from `start` (the first bought).
    static func run(_ prefix: String, from start: Int, periods: Int = 3, revokedOn: Double? = nil) -> [SubscriptionTransaction] {
        (0..<periods).map { period in
            T.transaction("\(prefix)\(period)", from: Double(start + 30 * period), to: Double(start + 30 * (period + 1)),
                          revokedOn: period == periods - 1 ? revokedOn : nil, revocationType: revokedOn == nil ? nil : "REFUND_FULL",
                          offerType: 2, offerId: T.offerId, discount: "PAY_AS_YOU_GO", price: 4_990,
                          reason: period == 0 ? "PURCHASE" : "RENEWAL")
        }
    }

    @Test func runsAreTheRedemptionsTheEligibilityEngineCounts() {
        let history = T.monthly(from: 0, to: 180) + Self.run("a", from: 180) + T.monthly(from: 270, to: 330, prefix: "b")
            + Self.run("c", from: 400)
        let runs = RedemptionRun.runs(in: history)
        #expect(runs.map(\.purchaseDate) == OfferRedemption.redemptions(in: history).map(\.date))
        #expect(runs.map(\.transactionId) == ["a0", "c0"])
        #expect(runs[0].appAccountToken == "6f1c2a34-0000-4000-8000-000000000001")
    }

    @Test func aFullPriceRenewalAfterTheRunIsRetained() {
        let history = Self.run("a", from: 0) + T.monthly(from: 90, to: 150, prefix: "after")
        let run = RedemptionRun.runs(in: history)[0]
        #expect(run.retained)
        #expect(run.outcome(at: T.day(100)) == .retained)
        #expect(run.outcome(at: T.day(1000)) == .retained)
    }

    @Test func aRunThatEndedWithoutARenewalChurned() {
        let run = RedemptionRun.runs(in: Self.run("a", from: 0))[0]
        #expect(!run.retained)
        #expect(run.endsAt == T.day(90))
        #expect(run.outcome(at: T.day(89)) == .inOffer)
        #expect(run.outcome(at: T.day(90)) == .churned)
    }

    @Test func aRunStillGoingIsInOffer() {
        let run = RedemptionRun.runs(in: Self.run("a", from: 0, periods: 2))[0]
        #expect(run.outcome(at: T.day(30)) == .inOffer)
    }

    @Test func aRefundedPeriodOfTheRunIsRefundedWhateverFollowed() {
        let history = Self.run("a", from: 0, revokedOn: 70) + T.monthly(from: 90, to: 150, prefix: "after")
        let run = RedemptionRun.runs(in: history, currencies: Dictionary(uniqueKeysWithValues: history.map { ($0.transactionId, "USD") }))[0]
        #expect(run.refunded)
        #expect(run.outcome(at: T.day(200)) == .refunded)
        // Refunded money is not revenue: two offer periods and two full-price ones.
        #expect(run.revenue == ["USD": 2 * 4_990 + 2 * 9_990])
    }

    @Test func aPeriodUnderAnotherOfferIsNotARenewalAtFullPrice() {
        let other = T.transaction("x", from: 90, to: 120, offerType: 2, offerId: "other", discount: "PAY_AS_YOU_GO", price: 100,
                                  reason: "RENEWAL")
        let run = RedemptionRun.runs(in: Self.run("a", from: 0) + [other])[0]
        #expect(!run.retained)
        #expect(run.outcome(at: T.day(100)) == .inOffer)
        #expect(run.outcome(at: T.day(121)) == .churned)
    }

    @Test func revenueSumsTheRunAndTheFullPriceRenewalsAfterItByCurrency() {
        let history = Self.run("a", from: 0) + T.monthly(from: 90, to: 150, prefix: "after")
        var currencies = Dictionary(uniqueKeysWithValues: history.map { ($0.transactionId, "EUR") })
        currencies["afterp120"] = nil
        let run = RedemptionRun.runs(in: history, currencies: currencies)[0]
        #expect(run.revenue == ["EUR": 3 * 4_990 + 9_990, RedemptionRun.unknownCurrency: 9_990])
    }

    @Test func refundedWinsOverRetainedWinsOverTime() {
        #expect(RedemptionOutcome.classify(refunded: true, retained: true, endsAt: T.day(10), now: T.day(5)) == .refunded)
        #expect(RedemptionOutcome.classify(refunded: false, retained: true, endsAt: T.day(10), now: T.day(5)) == .retained)
        #expect(RedemptionOutcome.classify(refunded: false, retained: false, endsAt: T.day(10), now: T.day(5)) == .inOffer)
        #expect(RedemptionOutcome.classify(refunded: false, retained: false, endsAt: T.day(10), now: T.day(10)) == .churned)
    }
}
