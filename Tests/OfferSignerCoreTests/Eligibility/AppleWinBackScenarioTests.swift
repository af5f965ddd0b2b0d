import Foundation
import Testing
@testable import OfferSignerCore

/// `appleWinBack` keeps marketing from stacking discounts on users whom Apple itself offers a
/// win-back offer (`eligibleWinBackOfferIds` of their renewal info), or targets only them.
@Suite struct AppleWinBackScenarioTests {
    typealias T = EligibilityTestData

    static let history = T.monthly(from: 0, to: 300)
    static let offered = T.renewal(signedOn: 330, intent: 1, winBackOffers: ["wb_native_b", "wb_native_a"])

    static func rule(_ requirement: AppleWinBackRequirement) -> OfferRule {
        var criteria = T.winBackCriteria
        criteria.appleWinBack = requirement
        return T.rule(criteria)
    }

    @Test func excludeRefusesUsersAppleAlreadyOffersOne() throws {
        let facts = try #require(T.facts(Self.history, renewals: [Self.offered], now: 400))
        #expect(facts.eligibleWinBackOfferIds == ["wb_native_a", "wb_native_b"])
        let decision = T.evaluate(facts, Self.rule(.exclude), now: 400)
        #expect(decision.failedCriteria == ["appleWinBack"])
        let reason = try #require(decision.reason("appleWinBack"))
        #expect(reason.required == .string("exclude") && reason.actual == .strings(["wb_native_a", "wb_native_b"]))
        #expect(reason.message == "Apple already offers this user its win-back offer wb_native_a, wb_native_b; "
            + "this offer excludes users Apple offers one.")
        #expect(T.evaluate(facts, Self.rule(.require), now: 400).eligible)
    }

    @Test func requireRefusesUsersAppleOffersNone() throws {
        let facts = try #require(T.facts(Self.history, renewals: [T.renewal(signedOn: 330, intent: 1)], now: 400))
        #expect(facts.eligibleWinBackOfferIds.isEmpty)
        let decision = T.evaluate(facts, Self.rule(.require), now: 400)
        #expect(decision.failedCriteria == ["appleWinBack"])
        #expect(decision.reason("appleWinBack")?.actual == .strings([]))
        #expect(decision.reason("appleWinBack")?.message
            == "Apple offers this user no win-back offer; this offer is only for users Apple offers one.")
        #expect(T.evaluate(facts, Self.rule(.exclude), now: 400).eligible)
    }

    @Test func onlyTheNewestRenewalInfoCounts() throws {
        // Apple's newer renewal info no longer lists the offer (the user redeemed it, or it ended).
        let later = T.renewal(signedOn: 360, intent: 1)
        let facts = try #require(T.facts(Self.history, renewals: [later, Self.offered], now: 400))
        #expect(facts.eligibleWinBackOfferIds.isEmpty)
    }

    @Test func unknownUser() {
        let open = EligibilityCriteria(appleWinBack: .require)
        let decision = T.evaluate(nil, T.rule(open), now: 400)
        #expect(decision.failedCriteria == ["appleWinBack"])
        #expect(decision.reason("appleWinBack")?.actual == .null)
        #expect(T.evaluate(nil, T.rule(EligibilityCriteria(appleWinBack: .exclude)), now: 400).eligible)
    }
}
