import Foundation

/// What the service knows about one user's history in one subscription group and one App
/// Store environment, as of one instant: the facts that offer rules are evaluated against,
/// and what `GET /v1/users/{userId}/history` serves.
///
/// Facts exist only for a user with at least one transaction in the group and environment;
/// a user without one is unknown (`nil` facts). Compute them with
/// ``compute(transactions:renewalStates:subscriptionGroupIdentifier:environment:now:)``.
public struct HistoryFacts: Codable, Hashable, Sendable {
    /// The subscription group the facts are about.
    public let subscriptionGroupIdentifier: String
    /// The environment whose history the facts come from; the other's never counts.
    public let environment: AppStoreEnvironment
    /// The instant the facts were computed for.
    public let asOf: Date
    /// Subscribed at `asOf`: a non-revoked transaction (the user's own or shared by a family
    /// member) covers it, or the subscription is in its billing grace period.
    public let isActive: Bool
    /// Apple is still trying to collect a failed renewal payment: the newest renewal info
    /// of a subscription says so, was signed after that subscription's latest period began,
    /// and it is less than 60 days (Apple's longest billing retry) since that period ended.
    /// True during a billing grace period too, where the user is also active.
    public let isInBillingRetry: Bool
    /// Churned as Apple means it for its win-back offers: had a subscription in the group,
    /// is not active, and is not in billing retry.
    public let isLapsed: Bool
    /// Whole days of paid subscription: free-trial periods and access shared by a family
    /// member excluded, overlaps counted once, each period cut at its revocation and at `asOf`.
    public let paidDays: Int
    /// The latest end (expiry or revocation) of any transaction in the group.
    public let latestEndDate: Date
    /// Whole days from ``latestEndDate`` to `asOf`; `nil` while the subscription is active.
    public let daysSinceExpiry: Int?
    /// Why the subscription that ended last expired (Apple's `expirationIntent`, 1–5), from
    /// its newest renewal info signed after its latest period began; `nil` when unknown.
    public let expirationIntent: Int?
    /// When the user last redeemed a promotional or win-back offer: the start of the latest
    /// redemption (see ``OfferRedemption``).
    public let lastOfferRedemptionDate: Date?
    /// Per promotional `offerIdentifier`, the number of redemptions (runs of consecutive
    /// offer periods, not transactions).
    public let redemptionsByOffer: [String: Int]
    /// Some transaction in the group was refunded (see ``SubscriptionTransaction/isRefund``);
    /// upgrades and family revocations are not refunds.
    public let isRefunded: Bool
    /// The storefront of the latest transaction (by purchase date), if Apple gave one.
    public let storefront: String?
    /// The win-back offers Apple itself offers the user, from the newest renewal info of
    /// each subscription in the group; sorted, empty when none.
    public let eligibleWinBackOfferIds: [String]

    public init(
        subscriptionGroupIdentifier: String, environment: AppStoreEnvironment, asOf: Date, isActive: Bool,
        isInBillingRetry: Bool, paidDays: Int, latestEndDate: Date, daysSinceExpiry: Int?, expirationIntent: Int?,
        lastOfferRedemptionDate: Date?, redemptionsByOffer: [String: Int], isRefunded: Bool, storefront: String?,
        eligibleWinBackOfferIds: [String]
    ) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.environment = environment
        self.asOf = asOf
        self.isActive = isActive
        self.isInBillingRetry = isInBillingRetry
        self.isLapsed = !isActive && !isInBillingRetry
        self.paidDays = paidDays
        self.latestEndDate = latestEndDate
        self.daysSinceExpiry = daysSinceExpiry
        self.expirationIntent = expirationIntent
        self.lastOfferRedemptionDate = lastOfferRedemptionDate
        self.redemptionsByOffer = redemptionsByOffer
        self.isRefunded = isRefunded
        self.storefront = storefront
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
    }

    enum CodingKeys: String, CodingKey {
        case subscriptionGroupIdentifier, environment, asOf, isActive, isInBillingRetry, isLapsed, paidDays
        case latestEndDate, daysSinceExpiry, expirationIntent, lastOfferRedemptionDate, redemptionsByOffer
        case isRefunded, storefront, eligibleWinBackOfferIds
    }

    /// Encodes every fact, an unknown one as `null`, so that the JSON always has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
        try container.encode(environment, forKey: .environment)
        try container.encode(asOf, forKey: .asOf)
        try container.encode(isActive, forKey: .isActive)
        try container.encode(isInBillingRetry, forKey: .isInBillingRetry)
        try container.encode(isLapsed, forKey: .isLapsed)
        try container.encode(paidDays, forKey: .paidDays)
        try container.encode(latestEndDate, forKey: .latestEndDate)
        try container.encode(daysSinceExpiry, forKey: .daysSinceExpiry)
        try container.encode(expirationIntent, forKey: .expirationIntent)
        try container.encode(lastOfferRedemptionDate, forKey: .lastOfferRedemptionDate)
        try container.encode(redemptionsByOffer, forKey: .redemptionsByOffer)
        try container.encode(isRefunded, forKey: .isRefunded)
        try container.encode(storefront, forKey: .storefront)
        try container.encode(eligibleWinBackOfferIds, forKey: .eligibleWinBackOfferIds)
    }

    /// How many times the user redeemed the promotional offer `offerId`.
    public func redemptions(of offerId: String) -> Int {
        redemptionsByOffer[offerId] ?? 0
    }
}
