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
    /// The offer the user took last — of any type but introductory: promotional, offer code,
    /// win-back, App Store retention offer or later — with its type, identifier and the start
    /// of that redemption (see ``OfferRedemption``); nil when none.
    public let lastOffer: LastOffer?
    /// Per Apple `offerType` (introductory excluded), the start of the user's latest redemption
    /// of an offer of that type; what `waitCountsOfferTypes` narrows the wait between offers to.
    public let lastOfferDateByType: [Int: Date]
    /// When the user last redeemed an offer of any type but introductory: ``lastOffer``'s date.
    public var lastOfferRedemptionDate: Date? { lastOffer?.date }
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
        lastOffer: LastOffer?, lastOfferDateByType: [Int: Date], redemptionsByOffer: [String: Int], isRefunded: Bool, storefront: String?,
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
        self.lastOffer = lastOffer
        self.lastOfferDateByType = lastOfferDateByType
        self.redemptionsByOffer = redemptionsByOffer
        self.isRefunded = isRefunded
        self.storefront = storefront
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
    }

    enum CodingKeys: String, CodingKey {
        case subscriptionGroupIdentifier, environment, asOf, isActive, isInBillingRetry, isLapsed, paidDays
        case latestEndDate, daysSinceExpiry, expirationIntent, lastOfferRedemptionDate, lastOffer, lastOfferDateByType
        case redemptionsByOffer
        case isRefunded, storefront, eligibleWinBackOfferIds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let byType = try container.decodeIfPresent([String: Date].self, forKey: .lastOfferDateByType) ?? [:]
        self.init(
            subscriptionGroupIdentifier: try container.decode(String.self, forKey: .subscriptionGroupIdentifier),
            environment: try container.decode(AppStoreEnvironment.self, forKey: .environment),
            asOf: try container.decode(Date.self, forKey: .asOf),
            isActive: try container.decode(Bool.self, forKey: .isActive),
            isInBillingRetry: try container.decode(Bool.self, forKey: .isInBillingRetry),
            paidDays: try container.decode(Int.self, forKey: .paidDays),
            latestEndDate: try container.decode(Date.self, forKey: .latestEndDate),
            daysSinceExpiry: try container.decodeIfPresent(Int.self, forKey: .daysSinceExpiry),
            expirationIntent: try container.decodeIfPresent(Int.self, forKey: .expirationIntent),
            lastOffer: try container.decodeIfPresent(LastOffer.self, forKey: .lastOffer),
            lastOfferDateByType: Dictionary(uniqueKeysWithValues: byType.compactMap { key, date in Int(key).map { ($0, date) } }),
            redemptionsByOffer: try container.decode([String: Int].self, forKey: .redemptionsByOffer),
            isRefunded: try container.decode(Bool.self, forKey: .isRefunded),
            storefront: try container.decodeIfPresent(String.self, forKey: .storefront),
            eligibleWinBackOfferIds: try container.decode([String].self, forKey: .eligibleWinBackOfferIds))
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
        try container.encode(lastOffer, forKey: .lastOffer)
        try container.encode(Dictionary(uniqueKeysWithValues: lastOfferDateByType.map { (String($0.key), $0.value) }),
                             forKey: .lastOfferDateByType)
        try container.encode(redemptionsByOffer, forKey: .redemptionsByOffer)
        try container.encode(isRefunded, forKey: .isRefunded)
        try container.encode(storefront, forKey: .storefront)
        try container.encode(eligibleWinBackOfferIds, forKey: .eligibleWinBackOfferIds)
    }

    /// The start of the user's latest redemption of an offer whose type is in `types`, or of
    /// any type but introductory when `types` is nil.
    public func lastOfferDate(counting types: [Int]?) -> Date? {
        guard let types else { return lastOfferRedemptionDate }
        return types.compactMap { lastOfferDateByType[$0] }.max()
    }

    /// How many times the user redeemed the promotional offer `offerId`.
    public func redemptions(of offerId: String) -> Int {
        redemptionsByOffer[offerId] ?? 0
    }
}
