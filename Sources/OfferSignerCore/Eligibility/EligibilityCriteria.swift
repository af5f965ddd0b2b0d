import Foundation

/// Who may redeem an offer. A criterion left out does not restrict. The facts each
/// criterion reads are those of ``HistoryFacts``.
public struct EligibilityCriteria: Codable, Hashable, Sendable {
    /// Only lapsed users: had a subscription in the group, not active, not in billing retry.
    public var requireLapsed: Bool?
    /// With `requireLapsed`, also admit users whose subscription expired and whom Apple is
    /// still retrying to charge (involuntary churn); a user in the billing grace period is
    /// active and still refused. Only meaningful with `requireLapsed: true`.
    public var includeBillingRetry: Bool?
    /// At least this many whole days of paid subscription.
    public var minPaidDays: Int?
    /// At least this many whole days since the subscription ended.
    public var minDaysSinceExpiry: Int?
    /// At most this many whole days since the subscription ended.
    public var maxDaysSinceExpiry: Int?
    /// At least this many whole days since the start of the user's last offer redemption:
    /// of any offer type but introductory (promotional 2, offer code 3, win-back 4, App Store
    /// retention offer 5, and later types) unless ``waitCountsOfferTypes`` narrows it.
    public var waitBetweenOffersDays: Int?
    /// The Apple offer types `waitBetweenOffersDays` counts, e.g. `[2, 4]`; nil counts every
    /// type but introductory.
    public var waitCountsOfferTypes: [Int]?
    /// Fewer than this many earlier redemptions of this offer.
    public var maxRedemptionsPerUser: Int?
    /// Refuse users with a refunded transaction in the group (full or prorated refunds;
    /// upgrades and family revocations are not refunds).
    public var excludeRefunded: Bool?
    /// ISO 3166-1 alpha-3 storefront codes, as Apple reports them (`USA`).
    public var storefronts: [String]?
    /// Apple's expiration intents (1 cancelled, 2 billing error, 3 declined a price
    /// increase, 4 product unavailable, 5 other) the latest expiry must have; a user whose
    /// intent is unknown fails.
    public var expirationIntents: [Int]?
    /// `exclude` users whom Apple itself offers a win-back offer, or `require` one.
    public var appleWinBack: AppleWinBackRequirement?
}

extension EligibilityCriteria {
    /// No criteria: every user passes (the default of a rule).
    public static let unrestricted = EligibilityCriteria()
}
