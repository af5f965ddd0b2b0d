import Foundation
@testable import OfferSignerCore

/// Builders for eligibility tests. Time is counted in days from a fixed origin, never `Date()`.
enum EligibilityTestData {
    static let group = "21000001"
    static let otherGroup = "21000002"
    static let offerId = "winback_50_3m"
    /// 2025-01-01T00:00:00Z.
    static let origin = Date(timeIntervalSince1970: 1_735_689_600)

    static func day(_ n: Double) -> Date {
        origin.addingTimeInterval(n * 86_400)
    }

    static func transaction(
        _ id: String, from start: Double, to end: Double?, revokedOn: Double? = nil,
        offerType: Int? = nil, offerId: String? = nil, discount: String? = nil, price: Int? = 9_990,
        storefront: String? = "USA", group: String = group, original: String = "1000", signedOn: Double? = nil
    ) -> SubscriptionTransaction {
        SubscriptionTransaction(
            transactionId: id, originalTransactionId: original, bundleId: "com.example.app",
            productId: "com.example.app.pro_monthly", subscriptionGroupIdentifier: group,
            purchaseDate: day(start), expiresDate: end.map(day), revocationDate: revokedOn.map(day),
            offerType: offerType, offerIdentifier: offerId, offerDiscountType: discount, price: price,
            storefront: storefront, appAccountToken: "6f1c2a34-0000-4000-8000-000000000001",
            signedDate: day(signedOn ?? start))
    }

    /// Paid 30-day periods back to back from `from` to `to` (days), ids "p<start>".
    static func monthly(from: Int, to: Int, storefront: String = "USA") -> [SubscriptionTransaction] {
        stride(from: from, to: to, by: 30).map {
            transaction("p\($0)", from: Double($0), to: Double(min($0 + 30, to)), storefront: storefront)
        }
    }

    static func facts(
        _ transactions: [SubscriptionTransaction], renewals: [SubscriptionRenewalState] = [], now: Double
    ) -> HistoryFacts? {
        HistoryFacts.compute(
            transactions: transactions, renewalStates: renewals, subscriptionGroupIdentifier: group, now: day(now))
    }

    /// The win-back rule of CONTRACT.md, running since `origin`.
    static let winBackCriteria = EligibilityCriteria(
        requireLapsed: true, minPaidDays: 180, minDaysSinceExpiry: 60, maxDaysSinceExpiry: 730,
        waitBetweenOffersDays: 60, maxRedemptionsPerUser: 1, excludeRefunded: true, storefronts: ["USA", "CAN"])

    static func rule(
        _ criteria: EligibilityCriteria = winBackCriteria, enabled: Bool = true,
        startsAt: Double? = 0, endsAt: Double? = nil
    ) -> OfferRule {
        OfferRule(
            offerId: offerId, bundleId: "com.example.app", productIds: ["com.example.app.pro_monthly"],
            enabled: enabled, priority: 10, startsAt: startsAt.map(day), endsAt: endsAt.map(day),
            eligibility: criteria)
    }

    static func evaluate(_ facts: HistoryFacts?, _ rule: OfferRule = rule(), now: Double) -> EligibilityDecision {
        EligibilityEvaluator.evaluate(facts: facts, rule: rule, now: day(now))
    }
}

extension EligibilityDecision {
    var failedCriteria: [String] { reasons.map(\.criterion) }

    func reason(_ criterion: String) -> EligibilityReason? {
        reasons.first { $0.criterion == criterion }
    }
}
