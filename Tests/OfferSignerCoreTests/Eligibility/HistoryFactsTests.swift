import Foundation
import Testing
@testable import OfferSignerCore

@Suite struct HistoryFactsTests {
    typealias T = EligibilityTestData

    @Test func freeTrialIsNotPaidTime() throws {
        let trial = T.transaction("trial", from: 0, to: 7, offerType: 1, discount: "FREE_TRIAL", price: 0)
        let history = [trial] + T.monthly(from: 7, to: 187)
        let facts = try #require(T.facts(history, now: 300))
        #expect(facts.paidDays == 180)
        #expect(try #require(T.facts([trial] + T.monthly(from: 7, to: 180), now: 300)).paidDays == 173)

        let decision = T.evaluate(T.facts([trial] + T.monthly(from: 7, to: 180), now: 300), now: 300)
        #expect(decision.failedCriteria == ["minPaidDays"])
        #expect(decision.reason("minPaidDays")?.actual == .int(173))
    }

    @Test func whatCountsAsPaid() {
        let legacyTrial = T.transaction("a", from: 0, to: 7, offerType: 1, price: 0)
        let paidIntro = T.transaction("b", from: 0, to: 30, offerType: 1, discount: "PAY_AS_YOU_GO", price: 990)
        let promotionalTrial = T.transaction("c", from: 0, to: 30, offerType: 2, offerId: "x", discount: "FREE_TRIAL", price: 0)
        let regular = T.transaction("d", from: 0, to: 30)
        #expect(!legacyTrial.isPaid)
        #expect(paidIntro.isPaid)
        #expect(!promotionalTrial.isPaid)
        #expect(regular.isPaid)
    }

    @Test func freePeriodsOfAnyOfferTypeAreUnpaidAndCommitmentMonthsArePaid() throws {
        let freeCode = T.transaction("a", from: 0, to: 30, offerType: 3, offerId: "FREEMONTH", price: 0)
        let freeRetention = T.transaction("b", from: 30, to: 60, offerType: 5, offerId: "stay", discount: "FREE_TRIAL", price: 0)
        let futureTypeFree = T.transaction("c", from: 60, to: 90, offerType: 9, price: 0)
        #expect(!freeCode.isPaid && !freeRetention.isPaid && !futureTypeFree.isPaid)
        var commitment = [T.transaction("d", from: 90, to: 120), T.transaction("e", from: 120, to: 150)]
        for index in commitment.indices {
            commitment[index].billingPlanType = "MONTHLY_COMMITMENT"
            commitment[index].commitmentInfo = .dictionary(["commitmentPeriodCount": .int(12)])
        }
        let facts = try #require(T.facts([freeCode, freeRetention, futureTypeFree] + commitment, now: 200))
        #expect(facts.paidDays == 60)
    }

    @Test func theLastOfferIsOfAnyTypeButIntroductory() throws {
        let history = [
            T.transaction("trial", from: 0, to: 7, offerType: 1, discount: "FREE_TRIAL", price: 0, reason: "PURCHASE"),
            T.transaction("code", from: 40, to: 70, offerType: 3, offerId: "SPRING", discount: "ONE_TIME", price: 100),
            T.transaction("retain", from: 100, to: 130, offerType: 5, offerId: "stay-50", discount: "PAY_AS_YOU_GO", price: 4_990),
            T.transaction("later", from: 160, to: 190, offerType: 7, offerId: "new-kind", price: 4_990),
            T.transaction("intro-again", from: 200, to: 207, offerType: 1, price: 0, reason: "PURCHASE"),
        ]
        let facts = try #require(T.facts(history, now: 300))
        #expect(facts.lastOffer == LastOffer(offerType: 7, offerIdentifier: "new-kind", date: T.day(160)))
        #expect(facts.lastOfferDateByType == [3: T.day(40), 5: T.day(100), 7: T.day(160)])
        #expect(facts.lastOfferDate(counting: [2, 4]) == nil)
        #expect(facts.lastOfferDate(counting: [3, 5]) == T.day(100))
        #expect(facts.redemptionsByOffer.isEmpty, "only promotional offers count per offer")
    }

    @Test func overlappingTransactionsCountOnce() throws {
        let history = [
            T.transaction("a", from: 0, to: 100),
            T.transaction("b", from: 50, to: 150, original: "2000"),
            T.transaction("c", from: 60, to: 90, original: "3000"),
            T.transaction("d", from: 200, to: 230),
        ]
        let facts = try #require(T.facts(history, now: 300))
        #expect(facts.paidDays == 180)
        #expect(facts.daysSinceExpiry == 70)
    }

    @Test func paidTimeStopsAtNowAndRoundsDown() throws {
        let facts = try #require(T.facts([T.transaction("a", from: 0, to: 365)], now: 99.9))
        #expect(facts.paidDays == 99)
        #expect(facts.isActive)
    }

    @Test func outOfOrderAndRepeatedTransactionsGiveTheSameFacts() throws {
        let promo = T.transaction("promo", from: 210, to: 240, offerType: 2, offerId: T.offerId, price: 4_990)
        let staleCopy = T.transaction("refund", from: 240, to: 270, signedOn: 240)
        let refunded = T.transaction("refund", from: 240, to: 270, revokedOn: 250, signedOn: 251)
        let inOrder = T.monthly(from: 0, to: 210) + [promo, staleCopy, refunded]
        let expected = try #require(T.facts(inOrder, now: 400))
        #expect(expected.isRefunded)
        #expect(expected.paidDays == 250)
        #expect(expected.redemptionsByOffer == [T.offerId: 1])

        let shuffled = [refunded, promo] + T.monthly(from: 0, to: 210).reversed() + [staleCopy, promo, refunded, promo]
        let repeated = inOrder + inOrder.reversed() + [staleCopy]
        #expect(T.facts(shuffled, now: 400) == expected)
        #expect(T.facts(repeated, now: 400) == expected)
        #expect(T.evaluate(T.facts(shuffled, now: 400), now: 400) == T.evaluate(expected, now: 400))
        #expect(T.evaluate(expected, now: 400).failedCriteria == ["maxRedemptionsPerUser", "excludeRefunded"])

        // Two copies signed at the same instant: the revoked one wins, in either order.
        let sameInstant = T.transaction("refund", from: 240, to: 270, signedOn: 251)
        #expect(T.facts([sameInstant, refunded], now: 400)?.isRefunded == true)
        #expect(T.facts([refunded, sameInstant], now: 400)?.isRefunded == true)
    }

    /// A history longer than the short ones the lookup scans linearly: repeats of early and
    /// late periods, in any order, still count once, the copy signed last winning.
    @Test func longHistoriesCountEachTransactionOnce() throws {
        let monthly = T.monthly(from: 0, to: 900)
        #expect(monthly.count == 30)
        let refundedEarly = T.transaction("p60", from: 60, to: 90, revokedOn: 70, signedOn: 71)
        let staleLate = T.transaction("p600", from: 600, to: 630, revokedOn: 610, signedOn: 599)
        let promo = T.transaction("promo", from: 900, to: 930, offerType: 2, offerId: T.offerId, price: 4_990)
        let expected = try #require(T.facts(monthly + [refundedEarly, promo], now: 1_000))
        #expect(expected.isRefunded)
        #expect(expected.paidDays == 910)
        #expect(expected.redemptionsByOffer == [T.offerId: 1])

        let newestFirst = [staleLate, refundedEarly, promo] + monthly.reversed() + [staleLate, monthly[2], promo]
        let repeatedTwice = monthly + monthly + [staleLate, promo, refundedEarly, promo]
        #expect(T.facts(newestFirst, now: 1_000) == expected)
        #expect(T.facts(repeatedTwice, now: 1_000) == expected)
        #expect(T.facts(monthly + [staleLate], now: 1_000)?.isRefunded == false)
    }

    @Test func storefrontIsThatOfTheLatestPurchase() throws {
        let history = [
            T.transaction("late", from: 300, to: 330, storefront: "CAN", signedOn: 300),
            T.transaction("early", from: 0, to: 30, storefront: "USA", signedOn: 500),
        ]
        #expect(try #require(T.facts(history, now: 400)).storefront == "CAN")
    }

    @Test func onlyTheRequestedGroupCounts() throws {
        let otherGroup = T.transaction("x", from: 0, to: 500, revokedOn: 20, storefront: "FRA", group: T.otherGroup)
        #expect(T.facts([otherGroup], now: 400) == nil)
        let facts = try #require(T.facts(T.monthly(from: 0, to: 300) + [otherGroup], now: 400))
        #expect(!facts.isRefunded)
        #expect(facts.storefront == "USA")
        #expect(facts.paidDays == 300)
    }

    @Test func factsEncodeAsJSON() throws {
        let facts = try #require(T.facts(T.monthly(from: 0, to: 300), now: 400))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(facts)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == [
            "subscriptionGroupIdentifier", "environment", "asOf", "isActive", "isInBillingRetry", "isLapsed",
            "paidDays", "latestEndDate", "daysSinceExpiry", "expirationIntent", "lastOfferRedemptionDate",
            "redemptionsByOffer", "isRefunded", "storefront", "eligibleWinBackOfferIds", "lastOffer", "lastOfferDateByType",
        ])
        #expect(object["environment"] as? String == "Production")
        #expect(object["expirationIntent"] is NSNull)
        #expect(object["eligibleWinBackOfferIds"] as? [String] == [])
        #expect(object["asOf"] as? String == "2026-02-05T00:00:00Z")
        #expect(object["paidDays"] as? Int == 300)
        #expect(object["lastOfferRedemptionDate"] is NSNull)
        #expect(object["lastOffer"] is NSNull)
        #expect(object["lastOfferDateByType"] as? [String: String] == [:])
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(HistoryFacts.self, from: data) == facts)
    }
}
