/// One period (a transaction) of a user's history as an experiment's report reads it.
public struct ExperimentPeriod: Hashable, Sendable {
    /// Milliseconds since 1970.
    public var purchasedAt: Int64
    /// When the period ends (nil: it does not, as for a non-expiring purchase).
    public var expiresAt: Int64?
    /// When it was refunded, if it was.
    public var revokedAt: Int64?
    /// Apple's `offerType` (nil: full price).
    public var offerType: Int?
    /// Apple's price, in milli-units (nil: unknown).
    public var price: Int64?
    /// ISO 4217 (`XXX` when unknown).
    public var currency: String

    public init(purchasedAt: Int64, expiresAt: Int64?, revokedAt: Int64?, offerType: Int?, price: Int64?, currency: String) {
        self.purchasedAt = purchasedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.offerType = offerType
        self.price = price
        self.currency = currency
    }
}
