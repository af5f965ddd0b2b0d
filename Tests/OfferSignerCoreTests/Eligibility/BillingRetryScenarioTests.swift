import Foundation
import Testing
@testable import OfferSignerCore

/// Billing retry is its own fact: a subscriber whose payment failed and whom Apple is still
/// retrying has not churned, unless a rule opts in with `includeBillingRetry`.
@Suite struct BillingRetryScenarioTests {
    typealias T = EligibilityTestData

    /// Rescue involuntary churn: lapsed (or, when `includeBillingRetry`, in billing retry)
    /// after at least 180 paid days.
    static func rescue(includeBillingRetry: Bool?) -> OfferRule {
        T.rule(EligibilityCriteria(requireLapsed: true, includeBillingRetry: includeBillingRetry, minPaidDays: 180))
    }

    static let history = T.monthly(from: 0, to: 300)
    static let retrying = T.renewal(signedOn: 300, retrying: true, intent: 2)

    @Test func subscriberInBillingRetryIsNotLapsed() throws {
        let facts = try #require(T.facts(Self.history, renewals: [Self.retrying], now: 320))
        #expect(!facts.isActive && facts.isInBillingRetry && !facts.isLapsed)
        #expect(facts.daysSinceExpiry == 20)
        #expect(facts.expirationIntent == 2)

        let decision = T.evaluate(facts, Self.rescue(includeBillingRetry: nil), now: 320)
        #expect(decision.failedCriteria == ["requireLapsed"])
        let reason = try #require(decision.reason("requireLapsed"))
        #expect(reason.required == .bool(true) && reason.actual == .bool(false))
        #expect(reason.message
            == "Apple is still retrying the subscription's payment (billing retry); this offer is only for lapsed subscribers.")
        #expect(T.evaluate(facts, Self.rescue(includeBillingRetry: false), now: 320).failedCriteria == ["requireLapsed"])
    }

    @Test func includeBillingRetryAdmitsThem() throws {
        let facts = T.facts(Self.history, renewals: [Self.retrying], now: 320)
        #expect(T.evaluate(facts, Self.rescue(includeBillingRetry: true), now: 320).eligible)
        // Lapsed users stay eligible under the same rule.
        #expect(T.evaluate(T.facts(Self.history, now: 320), Self.rescue(includeBillingRetry: true), now: 320).eligible)
    }

    @Test func billingGracePeriodIsStillActiveWithIncludeBillingRetry() throws {
        let grace = T.renewal(signedOn: 300, retrying: true, graceUntil: 316)
        let facts = try #require(T.facts(Self.history, renewals: [grace], now: 305))
        #expect(facts.isActive && facts.isInBillingRetry && !facts.isLapsed)
        let decision = T.evaluate(facts, Self.rescue(includeBillingRetry: true), now: 305)
        #expect(decision.failedCriteria == ["requireLapsed"])
        #expect(decision.reason("requireLapsed")?.message
            == "The subscription is active; this offer is only for lapsed subscribers and those in billing retry.")
    }

    @Test func billingRetryEnds() throws {
        // Apple gave up: its newer renewal info no longer says billing retry.
        let gaveUp = T.renewal(signedOn: 340, retrying: false, intent: 2)
        #expect(try #require(T.facts(Self.history, renewals: [Self.retrying, gaveUp], now: 345)).isLapsed)
        // Without word from Apple, billing retry ends 60 days after the expiry.
        #expect(try #require(T.facts(Self.history, renewals: [Self.retrying], now: 359.9)).isInBillingRetry)
        let after = try #require(T.facts(Self.history, renewals: [Self.retrying], now: 360))
        #expect(!after.isInBillingRetry && after.isLapsed)
        // Renewal info signed before the latest period began is about an earlier renewal.
        let stale = T.renewal(signedOn: 200, retrying: true)
        #expect(try #require(T.facts(Self.history, renewals: [stale], now: 320)).isLapsed)
        // A recovered subscription is active again, whatever an older renewal info said.
        let recovered = Self.history + [T.transaction("recovered", from: 325, to: 355)]
        #expect(try #require(T.facts(recovered, renewals: [Self.retrying], now: 330)).isActive)
    }

    @Test func includeBillingRetryNeedsRequireLapsed() {
        let rule = T.rule(EligibilityCriteria(includeBillingRetry: true))
        #expect(rule.validationProblems() == ["'eligibility.includeBillingRetry' applies only with 'eligibility.requireLapsed': true"])
        #expect(Self.rescue(includeBillingRetry: true).validationProblems().isEmpty)
    }
}
