import Foundation

/// What the service knows about one user's history in one subscription group, as of one
/// instant: the facts that offer rules are evaluated against, and what
/// `GET /v1/users/{userId}/history` serves.
///
/// Facts exist only for a user with at least one transaction in the group; a user without
/// one is unknown (`nil` facts). Compute them with
/// ``compute(transactions:renewalStates:subscriptionGroupIdentifier:now:)``.
public struct HistoryFacts: Codable, Hashable, Sendable {
    /// The subscription group the facts are about.
    public let subscriptionGroupIdentifier: String
    /// The instant the facts were computed for.
    public let asOf: Date
    /// Subscribed at `asOf`: a non-revoked transaction covers it, or the subscription is
    /// in its billing grace period.
    public let isActive: Bool
    /// Had a subscription in the group and is not active.
    public let isLapsed: Bool
    /// Whole days of paid subscription (free-trial periods excluded, overlaps counted once,
    /// each period cut at its revocation and at `asOf`).
    public let paidDays: Int
    /// The latest end (expiry or revocation) of any transaction in the group.
    public let latestEndDate: Date
    /// Whole days from ``latestEndDate`` to `asOf`; `nil` while the subscription is active.
    public let daysSinceExpiry: Int?
    /// The latest purchase date of a promotional or win-back offer transaction.
    public let lastOfferRedemptionDate: Date?
    /// Per promotional `offerIdentifier`, the number of transactions that redeemed it.
    public let redemptionsByOffer: [String: Int]
    /// Some transaction in the group was refunded or revoked.
    public let isRefunded: Bool
    /// The storefront of the latest transaction (by purchase date), if Apple gave one.
    public let storefront: String?

    public init(
        subscriptionGroupIdentifier: String, asOf: Date, isActive: Bool, paidDays: Int, latestEndDate: Date,
        daysSinceExpiry: Int?, lastOfferRedemptionDate: Date?, redemptionsByOffer: [String: Int],
        isRefunded: Bool, storefront: String?
    ) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.asOf = asOf
        self.isActive = isActive
        self.isLapsed = !isActive
        self.paidDays = paidDays
        self.latestEndDate = latestEndDate
        self.daysSinceExpiry = daysSinceExpiry
        self.lastOfferRedemptionDate = lastOfferRedemptionDate
        self.redemptionsByOffer = redemptionsByOffer
        self.isRefunded = isRefunded
        self.storefront = storefront
    }

    enum CodingKeys: String, CodingKey {
        case subscriptionGroupIdentifier, asOf, isActive, isLapsed, paidDays, latestEndDate, daysSinceExpiry
        case lastOfferRedemptionDate, redemptionsByOffer, isRefunded, storefront
    }

    /// Encodes every fact, an unknown one as `null`, so that the JSON always has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
        try container.encode(asOf, forKey: .asOf)
        try container.encode(isActive, forKey: .isActive)
        try container.encode(isLapsed, forKey: .isLapsed)
        try container.encode(paidDays, forKey: .paidDays)
        try container.encode(latestEndDate, forKey: .latestEndDate)
        try container.encode(daysSinceExpiry, forKey: .daysSinceExpiry)
        try container.encode(lastOfferRedemptionDate, forKey: .lastOfferRedemptionDate)
        try container.encode(redemptionsByOffer, forKey: .redemptionsByOffer)
        try container.encode(isRefunded, forKey: .isRefunded)
        try container.encode(storefront, forKey: .storefront)
    }

    /// How many times the user redeemed the promotional offer `offerId`.
    public func redemptions(of offerId: String) -> Int {
        redemptionsByOffer[offerId] ?? 0
    }
}
