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
        revocationType: String? = nil, revocationReason: Int? = nil, upgraded: Bool? = nil,
        offerType: Int? = nil, offerId: String? = nil, discount: String? = nil, price: Int? = 9_990,
        storefront: String? = "USA", group: String = group, original: String = "1000", signedOn: Double? = nil,
        environment: AppStoreEnvironment = .production, ownership: String? = "PURCHASED", reason: String? = nil
    ) -> SubscriptionTransaction {
        SubscriptionTransaction(
            transactionId: id, originalTransactionId: original, bundleId: "com.example.app",
            productId: "com.example.app.pro_monthly", subscriptionGroupIdentifier: group, environment: environment,
            purchaseDate: day(start), expiresDate: end.map(day), revocationDate: revokedOn.map(day),
            revocationReason: revocationReason, revocationType: revocationType, isUpgraded: upgraded,
            offerType: offerType, offerIdentifier: offerId, offerDiscountType: discount, price: price,
            storefront: storefront, appAccountToken: "6f1c2a34-0000-4000-8000-000000000001",
            inAppOwnershipType: ownership, transactionReason: reason, signedDate: day(signedOn ?? start))
    }

    /// Renewal info of subscription `original`, signed on day `signedOn`.
    static func renewal(
        signedOn: Double, original: String = "1000", retrying: Bool? = nil, graceUntil: Double? = nil,
        intent: Int? = nil, winBackOffers: [String] = [], environment: AppStoreEnvironment = .production
    ) -> SubscriptionRenewalState {
        SubscriptionRenewalState(
            originalTransactionId: original, environment: environment, autoRenewStatus: intent == nil ? 1 : 0,
            isInBillingRetryPeriod: retrying, gracePeriodExpiresDate: graceUntil.map(day), expirationIntent: intent,
            eligibleWinBackOfferIds: winBackOffers, signedDate: day(signedOn))
    }

    /// Paid 30-day periods back to back from `from` to `to` (days), ids "p<start>" (with
    /// `prefix` before "p"), of subscription `original`.
    static func monthly(
        from: Int, to: Int, storefront: String = "USA", original: String = "1000", prefix: String = "",
        environment: AppStoreEnvironment = .production, ownership: String? = "PURCHASED"
    ) -> [SubscriptionTransaction] {
        stride(from: from, to: to, by: 30).map {
            transaction("\(prefix)p\($0)", from: Double($0), to: Double(min($0 + 30, to)), storefront: storefront,
                        original: original, environment: environment, ownership: ownership)
        }
    }

    static func facts(
        _ transactions: [SubscriptionTransaction], renewals: [SubscriptionRenewalState] = [], now: Double,
        environment: AppStoreEnvironment = .production
    ) -> HistoryFacts? {
        HistoryFacts.compute(
            transactions: transactions, renewalStates: renewals, subscriptionGroupIdentifier: group,
            environment: environment, now: day(now))
    }

    /// The win-back rule of the README's example offer, running since `origin`.
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
