import Foundation
import Testing
@testable import OfferSignerCore

/// A revocation is not always a refund: upgrades and family revocations are not, and
/// `excludeRefunded` refuses refunds only.
@Suite struct RevocationScenarioTests {
    typealias T = EligibilityTestData

    /// Eight paid months, the last one revoked on day 250 as `last` says.
    static func history(_ last: SubscriptionTransaction) -> [SubscriptionTransaction] {
        T.monthly(from: 0, to: 240) + [last]
    }

    @Test func upgradedTransactionIsNotARefund() throws {
        // The customer upgraded on day 250: Apple revoked the old period (and refunded what
        // was left of it) and started the new product in the same subscription.
        let basic = T.transaction("basic", from: 240, to: 270, revokedOn: 250, revocationType: "REFUND_PRORATED", upgraded: true)
        let premium = T.transaction("premium", from: 250, to: 280)
        let facts = try #require(T.facts(Self.history(basic) + [premium], now: 400))
        #expect(!facts.isRefunded)
        #expect(facts.paidDays == 280)
        #expect(T.evaluate(facts, now: 400).eligible)
        #expect(!basic.isRefund)
    }

    @Test func switchToABundleIsNotARefund() throws {
        // A `revocationReason` other than Apple's two refund reasons (0 and 1).
        let switched = T.transaction("switched", from: 240, to: 270, revokedOn: 250, revocationReason: 2)
        #expect(!switched.isRefund)
        #expect(try #require(T.facts(Self.history(switched), now: 400)).isRefunded == false)
    }

    @Test func proratedAndFullRefundsAreRefunds() throws {
        var prorated = T.transaction("prorated", from: 240, to: 270, revokedOn: 250, revocationType: "REFUND_PRORATED", revocationReason: 1)
        prorated.revocationPercentage = 66_667
        let full = T.transaction("full", from: 240, to: 270, revokedOn: 250, revocationType: "REFUND_FULL", revocationReason: 0)
        for refunded in [prorated, full] {
            let facts = try #require(T.facts(Self.history(refunded), now: 400))
            #expect(facts.isRefunded)
            let decision = T.evaluate(facts, now: 400)
            #expect(decision.failedCriteria == ["excludeRefunded"])
            #expect(decision.reason("excludeRefunded")?.actual == .bool(true))
        }
    }

    @Test func familyRevocationIsNotARefund() throws {
        // A family member left the family group on day 250: Apple revokes the shared
        // period with `FAMILY_REVOKE` (and `revocationReason` 0).
        let shared = T.monthly(from: 0, to: 240, original: "2000", ownership: "FAMILY_SHARED") + [
            T.transaction("left", from: 240, to: 270, revokedOn: 250, revocationType: "FAMILY_REVOKE", revocationReason: 0,
                          original: "2000", ownership: "FAMILY_SHARED"),
        ]
        let own = T.monthly(from: 260, to: 440, prefix: "own")
        let facts = try #require(T.facts(shared + own, now: 500))
        #expect(!facts.isRefunded)
        #expect(facts.paidDays == 180)
        #expect(T.evaluate(facts, now: 500).eligible)

        // The same family member refunded a purchase of their own (prorated): refused.
        let refunded = T.transaction("refunded", from: 410, to: 440, revokedOn: 415, revocationType: "REFUND_PRORATED")
        let withRefund = try #require(T.facts(shared + own.dropLast() + [refunded], now: 500))
        #expect(withRefund.isRefunded)
        #expect(T.evaluate(withRefund, now: 500).failedCriteria.contains("excludeRefunded"))
    }

    @Test func revocationWithoutRevocationTypeKeepsTheOlderReading() throws {
        // Before Apple sent `revocationType`, every revocation that is not an upgrade reads as a refund.
        let legacy = T.transaction("legacy", from: 240, to: 270, revokedOn: 250, revocationReason: 0)
        #expect(legacy.isRefund)
        #expect(try #require(T.facts(Self.history(legacy), now: 400)).isRefunded)
        // A revocation type Apple adds later is not read as a refund.
        let newer = T.transaction("newer", from: 240, to: 270, revokedOn: 250, revocationType: "ASSIGNMENT_REVOKE")
        #expect(!newer.isRefund)
    }
}
