import Foundation
import Testing
@testable import OfferSignerCore

/// A family member's transactions (`FAMILY_SHARED`) are access someone else paid for: they
/// count toward having had a subscription and toward the lapse, never toward paid days.
@Suite struct FamilySharingScenarioTests {
    typealias T = EligibilityTestData

    static let shared = T.monthly(from: 0, to: 240, original: "2000", ownership: "FAMILY_SHARED")

    @Test func familyMemberWithEightSharedMonthsFailsMinPaidDays() throws {
        let facts = try #require(T.facts(Self.shared, now: 400))
        #expect(facts.isLapsed)
        #expect(facts.paidDays == 0)
        #expect(facts.daysSinceExpiry == 160)
        let decision = T.evaluate(facts, now: 400)
        #expect(decision.failedCriteria == ["minPaidDays"])
        let reason = try #require(decision.reason("minPaidDays"))
        #expect(reason.required == .int(180) && reason.actual == .int(0))
        #expect(reason.message == "Paid 0 days; this offer needs at least 180.")
    }

    @Test func sharedAccessCountsTowardActiveAndTheLapse() throws {
        let active = try #require(T.facts(Self.shared, now: 100))
        #expect(active.isActive && !active.isLapsed && active.paidDays == 0)
        // Paid time of their own counts; the shared months that overlap it change nothing.
        let own = T.monthly(from: 120, to: 330, prefix: "own")
        let facts = try #require(T.facts(Self.shared + own, now: 400))
        #expect(facts.paidDays == 210)
        #expect(facts.latestEndDate == T.day(330))
        #expect(T.evaluate(facts, now: 400).eligible)
    }

    @Test func whatCountsAsPaid() {
        #expect(!T.transaction("f", from: 0, to: 30, ownership: "FAMILY_SHARED").isPaid)
        #expect(T.transaction("p", from: 0, to: 30, ownership: "PURCHASED").isPaid)
        // Data without an ownership type, as stored before it was kept, reads as purchased.
        #expect(T.transaction("u", from: 0, to: 30, ownership: nil).isPaid)
    }
}
