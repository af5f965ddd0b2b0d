import Foundation
import Testing
@testable import OfferSignerCore

/// Each path of the introductory-offer decision: Apple's default, a rule's `allowAgain`,
/// `excludeRefunded` and `storefronts`, and which rule applies.
@Suite("Introductory-offer eligibility")
struct IntroductoryOfferEvaluatorTests {
    typealias Data = EligibilityTestData
    static let group = EligibilityTestData.group

    /// A free-trial week from day `from`, then paid months to `paidTo`.
    static func trialThenPaid(from: Int, paidTo: Int, environment: AppStoreEnvironment = .production,
                              ownership: String? = "PURCHASED", storefront: String = "USA") -> [SubscriptionTransaction] {
        [Data.transaction("trial\(from)", from: Double(from), to: Double(from + 7), offerType: 1, discount: "FREE_TRIAL", price: 0,
                          storefront: storefront, environment: environment, ownership: ownership, reason: "PURCHASE")]
            + Data.monthly(from: from + 7, to: paidTo, storefront: storefront, environment: environment, ownership: ownership)
    }

    func decide(_ transactions: [SubscriptionTransaction], rule: IntroductoryOfferRule?, now: Double) -> EligibilityDecision {
        IntroductoryOfferEvaluator.evaluate(
            facts: Data.facts(transactions, now: now),
            lastIntroductoryOffer: SubscriptionTransaction.lastIntroductoryOffer(in: transactions, group: Self.group, environment: .production),
            rule: rule, now: Data.day(now))
    }

    func rule(allowAgain: EligibilityCriteria? = nil, excludeRefunded: Bool? = nil, storefronts: [String]? = nil) -> IntroductoryOfferRule {
        IntroductoryOfferRule(ruleId: "trial-again", bundleId: "com.example.app", subscriptionGroupIds: [Self.group],
                              allowAgain: allowAgain, excludeRefunded: excludeRefunded, storefronts: storefronts)
    }

    @Test("without a rule, Apple's default: a user who never had an introductory offer in the group gets one")
    func appleDefault() throws {
        #expect(decide([], rule: nil, now: 100).eligible, "no history at all")
        #expect(decide(Data.monthly(from: 0, to: 90), rule: nil, now: 100).eligible, "paid, but never an introductory offer")
        let denied = decide(Self.trialThenPaid(from: 0, paidTo: 97), rule: nil, now: 400)
        #expect(!denied.eligible && denied.failedCriteria == ["introductoryOfferRedeemed"])
        let reason = try #require(denied.reason("introductoryOfferRedeemed"))
        #expect(reason.required == .bool(false) && reason.actual == .bool(true))
        #expect(reason.message.contains("2025-01-01T00:00:00Z") && reason.message.contains("one per group"))
    }

    @Test("an introductory offer of another group, another environment or shared by family does not count")
    func whatCounts() {
        let otherGroup = [Data.transaction("t", from: 0, to: 7, offerType: 1, discount: "FREE_TRIAL", price: 0,
                                           group: Data.otherGroup)]
        #expect(decide(otherGroup, rule: nil, now: 100).eligible)
        #expect(decide(Self.trialThenPaid(from: 0, paidTo: 97, environment: .sandbox), rule: nil, now: 400).eligible)
        #expect(decide(Self.trialThenPaid(from: 0, paidTo: 97, ownership: "FAMILY_SHARED"), rule: nil, now: 400).eligible)
    }

    @Test("allowAgain: a user who had one gets it again after N days lapsed with M paid days, and not before")
    func allowAgain() throws {
        let again = rule(allowAgain: EligibilityCriteria(requireLapsed: true, minPaidDays: 60, minDaysSinceExpiry: 365))
        let history = Self.trialThenPaid(from: 0, paidTo: 97)   // 90 paid days, ended on day 97
        #expect(decide(history, rule: again, now: 97 + 365).eligible)
        let tooSoon = decide(history, rule: again, now: 97 + 100)
        #expect(!tooSoon.eligible && tooSoon.failedCriteria == ["introductoryOfferRedeemed", "allowAgain.minDaysSinceExpiry"])
        #expect(tooSoon.reason("allowAgain.minDaysSinceExpiry")?.actual == .int(100))
        let active = decide(history, rule: again, now: 50)   // 43 paid days so far
        #expect(active.failedCriteria == ["introductoryOfferRedeemed", "allowAgain.requireLapsed", "allowAgain.minPaidDays",
                                          "allowAgain.minDaysSinceExpiry"])
        let shortTrial = decide(Self.trialThenPaid(from: 0, paidTo: 37), rule: again, now: 37 + 400)
        #expect(shortTrial.failedCriteria == ["introductoryOfferRedeemed", "allowAgain.minPaidDays"])
        #expect(decide([], rule: again, now: 10).eligible, "allowAgain does not restrict a user who never had one")
    }

    @Test("excludeRefunded and storefronts deny every user who fails them, even one who never had an offer")
    func denials() throws {
        let refunded = [Data.transaction("r", from: 0, to: 30, revokedOn: 5, revocationType: "REFUND_FULL")]
        let noRefunds = rule(excludeRefunded: true)
        let denied = decide(refunded, rule: noRefunds, now: 100)
        #expect(!denied.eligible && denied.failedCriteria == ["excludeRefunded"])
        #expect(decide(Data.monthly(from: 0, to: 60), rule: noRefunds, now: 100).eligible)

        let usOnly = rule(storefronts: ["USA"])
        #expect(decide(Data.monthly(from: 0, to: 60), rule: usOnly, now: 100).eligible)
        let french = decide(Data.monthly(from: 0, to: 60, storefront: "FRA"), rule: usOnly, now: 100)
        #expect(french.failedCriteria == ["storefronts"] && french.reason("storefronts")?.actual == .string("FRA"))
        #expect(decide([], rule: usOnly, now: 100).failedCriteria == ["storefronts"], "an unknown storefront is not a listed one")

        let both = decide(Self.trialThenPaid(from: 0, paidTo: 37, storefront: "FRA"), rule: usOnly, now: 400)
        #expect(both.failedCriteria == ["introductoryOfferRedeemed", "storefronts"])
    }

    @Test("the rule naming the product wins over one naming its group; then priority; disabled rules never apply")
    func deciding() {
        let product = "com.example.app.pro_monthly"
        let group = IntroductoryOfferRule(ruleId: "group", bundleId: "b", priority: 100, subscriptionGroupIds: ["g"])
        let productRule = IntroductoryOfferRule(ruleId: "product", bundleId: "b", productIds: [product])
        let higher = IntroductoryOfferRule(ruleId: "higher", bundleId: "b", priority: 5, productIds: [product])
        let disabled = IntroductoryOfferRule(ruleId: "off", bundleId: "b", enabled: false, priority: 50, productIds: [product])
        #expect(IntroductoryOfferRule.deciding([group, productRule], productId: product, group: "g")?.ruleId == "product")
        #expect(IntroductoryOfferRule.deciding([group, productRule, higher, disabled], productId: product, group: "g")?.ruleId == "higher")
        #expect(IntroductoryOfferRule.deciding([group], productId: product, group: "g")?.ruleId == "group")
        #expect(IntroductoryOfferRule.deciding([group], productId: product, group: nil) == nil, "an unknown group matches no group rule")
        #expect(IntroductoryOfferRule.deciding([disabled], productId: product, group: "g") == nil)
    }

    @Test("a rule that cannot be right is refused with every fault named")
    func validation() {
        #expect(rule().validationProblems().isEmpty)
        let bad = IntroductoryOfferRule(ruleId: "", bundleId: "b", productIds: [], allowAgain: EligibilityCriteria(
            minPaidDays: -1, maxRedemptionsPerUser: 1, storefronts: ["us"]), storefronts: ["usa"])
        let problems = bad.validationProblems()
        #expect(problems.contains("'ruleId' must be 1–256 visible ASCII characters other than /"))
        #expect(problems.contains { $0.hasPrefix("'productIds' must not be empty") })
        #expect(problems.contains("'storefronts' entry 'usa' is not an ISO 3166-1 alpha-3 code such as USA"))
        #expect(problems.contains("'allowAgain.minPaidDays' must be between 0 and 36500 days"))
        #expect(problems.contains("'allowAgain.storefronts' entry 'us' is not an ISO 3166-1 alpha-3 code such as USA"))
        #expect(problems.contains { $0.hasPrefix("'allowAgain.maxRedemptionsPerUser'") })
        let nowhere = IntroductoryOfferRule(ruleId: "r", bundleId: "b")
        #expect(nowhere.validationProblems() == [
            "name the products ('productIds') or subscription groups ('subscriptionGroupIds') the rule applies to",
        ])
    }
}
