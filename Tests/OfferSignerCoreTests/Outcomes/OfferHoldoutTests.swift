import Foundation
import Testing
@testable import OfferSignerCore

/// Holdout groups: stable, of the configured share, and applied only to eligible users.
@Suite struct OfferHoldoutTests {
    static let users = (0..<20_000).map { "user-\($0)" }

    @Test func theSameUserAlwaysLandsInTheSameGroup() {
        let first = Self.users.filter { OfferHoldout.isHeldOut(bundleId: "com.example.app", offerId: "winback", user: $0, percent: 10) }
        let again = Self.users.filter { OfferHoldout.isHeldOut(bundleId: "com.example.app", offerId: "winback", user: $0, percent: 10) }
        #expect(first == again)
        // Known buckets (SHA-256 of the three joined by U+0000, 8 bytes, modulo 10,000), so that a change of the
        // hash, which would move users between groups, fails here.
        #expect(OfferHoldout.bucket(bundleId: "com.example.app", offerId: "winback", user: "user-0") == 3943)
        #expect(OfferHoldout.bucket(bundleId: "com.example.app", offerId: "winback", user: "user-1") == 2868)
    }

    @Test(arguments: [0, 5, 10, 25, 50]) func theShareIsThePercentage(percent: Int) {
        let held = Self.users.filter { OfferHoldout.isHeldOut(bundleId: "com.example.app", offerId: "winback", user: $0, percent: percent) }
        let share = Double(held.count) / Double(Self.users.count) * 100
        #expect(abs(share - Double(percent)) < 1.0, "held out \(share)% for \(percent)%")
    }

    @Test func raisingThePercentageOnlyAddsUsers() {
        let ten = Set(Self.users.filter { OfferHoldout.isHeldOut(bundleId: "b", offerId: "o", user: $0, percent: 10) })
        let twenty = Set(Self.users.filter { OfferHoldout.isHeldOut(bundleId: "b", offerId: "o", user: $0, percent: 20) })
        #expect(ten.isSubset(of: twenty))
    }

    @Test func onlyAnEligibleUserIsHeldOut() throws {
        let user = try #require(Self.users.first { OfferHoldout.isHeldOut(bundleId: "com.example.app", offerId: "winback", user: $0, percent: 50) })
        let rule = OfferRule(offerId: "winback", bundleId: "com.example.app", productIds: ["p"], holdoutPercent: 50)
        let held = OfferHoldout.apply(to: EligibilityDecision(reasons: []), rule: rule, user: user)
        #expect(!held.eligible)
        #expect(held.reasons.map(\.criterion) == ["holdout"])
        let refused = EligibilityDecision(reasons: [EligibilityReason(criterion: "minPaidDays", required: .int(1), actual: .int(0), message: "")])
        #expect(OfferHoldout.apply(to: refused, rule: rule, user: user) == refused)
        var none = rule
        none.holdoutPercent = 0
        #expect(OfferHoldout.apply(to: EligibilityDecision(reasons: []), rule: none, user: user).eligible)
    }

    @Test func theUserIsTheTokenOrTheProvenSubscription() {
        #expect(OfferHoldout.userKey(appAccountToken: "abc", provenOriginalTransactionId: "1000") == "abc")
        #expect(OfferHoldout.userKey(appAccountToken: "", provenOriginalTransactionId: "1000") == "transaction:1000")
    }

    @Test func holdoutPercentIsValidatedAndDefaultsToZero() throws {
        var rule = OfferRule(offerId: "winback", bundleId: "com.example.app", productIds: ["p"])
        #expect(rule.holdoutPercent == 0)
        rule.holdoutPercent = 51
        #expect(rule.validationProblems() == ["'holdoutPercent' must be between 0 and 50"])
        rule.holdoutPercent = -1
        #expect(rule.validationProblems() == ["'holdoutPercent' must be between 0 and 50"])
        rule.holdoutPercent = 50
        #expect(rule.validationProblems().isEmpty)
        let decoded = try JSONDecoder().decode(OfferRule.self, from: Data(#"{"offerId":"o","bundleId":"b","productIds":["p"]}"#.utf8))
        #expect(decoded.holdoutPercent == 0)
    }
}
