import Foundation
import Testing
@testable import OfferSignerCore

/// Why they left: `expirationIntents` admits only users whose latest expiry has one of the
/// listed intents; an unknown intent fails.
@Suite struct ExpirationIntentScenarioTests {
    typealias T = EligibilityTestData

    static let history = T.monthly(from: 0, to: 300)

    /// The win-back rule, for customers who declined a price increase.
    static let priceSensitive: OfferRule = {
        var criteria = T.winBackCriteria
        criteria.expirationIntents = [3]
        return T.rule(criteria)
    }()

    @Test func priceIncreaseChurnerIsAdmitted() throws {
        let facts = try #require(T.facts(Self.history, renewals: [T.renewal(signedOn: 300, intent: 3)], now: 400))
        #expect(facts.expirationIntent == 3)
        #expect(T.evaluate(facts, Self.priceSensitive, now: 400).eligible)
    }

    @Test func cancellationIsRefused() throws {
        let facts = try #require(T.facts(Self.history, renewals: [T.renewal(signedOn: 300, intent: 1)], now: 400))
        let decision = T.evaluate(facts, Self.priceSensitive, now: 400)
        #expect(decision.failedCriteria == ["expirationIntents"])
        let reason = try #require(decision.reason("expirationIntents"))
        #expect(reason.required == .ints([3]) && reason.actual == .int(1))
        #expect(reason.message == "The subscription expired because the customer cancelled (intent 1); this offer is for expiration intents 3.")
    }

    @Test func unknownIntentFails() throws {
        let noRenewalInfo = try #require(T.facts(Self.history, now: 400))
        #expect(noRenewalInfo.expirationIntent == nil)
        let decision = T.evaluate(noRenewalInfo, Self.priceSensitive, now: 400)
        #expect(decision.failedCriteria == ["expirationIntents"])
        #expect(decision.reason("expirationIntents")?.actual == .null)
        #expect(decision.reason("expirationIntents")?.message
            == "Why the subscription expired is not known; this offer is for expiration intents 3.")

        // Renewal info signed before the latest period began speaks of an earlier expiry.
        let stale = try #require(T.facts(Self.history, renewals: [T.renewal(signedOn: 100, intent: 3)], now: 400))
        #expect(stale.expirationIntent == nil)
        // An unknown user fails it too.
        #expect(T.evaluate(nil, T.rule(EligibilityCriteria(expirationIntents: [1, 3])), now: 400).reason("expirationIntents")?.message
            == "No subscription in this group is known for this user; this offer is for expiration intents 1, 3.")
    }

    @Test func theSubscriptionThatEndedLastDecides() throws {
        // Two subscriptions in the group: a family member's shared one ended for a billing
        // error, the user's own later one because of a price increase.
        let shared = T.monthly(from: 0, to: 120, original: "2000", prefix: "f", ownership: "FAMILY_SHARED")
        let renewals = [T.renewal(signedOn: 120, original: "2000", intent: 2), T.renewal(signedOn: 300, intent: 3)]
        #expect(try #require(T.facts(shared + Self.history, renewals: renewals, now: 400)).expirationIntent == 3)
    }

    @Test func intentsAreValidated() {
        func problems(_ intents: [Int]) -> [String] {
            T.rule(EligibilityCriteria(expirationIntents: intents)).validationProblems()
        }
        #expect(problems([1, 3]).isEmpty)
        #expect(problems([]) == ["'eligibility.expirationIntents' must not be empty (leave it out to allow every reason)"])
        #expect(problems([0, 3, 6]) == [
            "'eligibility.expirationIntents' entry 0 is not one of Apple's expiration intents (1–5)",
            "'eligibility.expirationIntents' entry 6 is not one of Apple's expiration intents (1–5)",
        ])
        #expect(problems([3, 3]) == ["'eligibility.expirationIntents' lists an intent twice"])
    }
}
