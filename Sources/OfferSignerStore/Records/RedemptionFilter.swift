import OfferSignerCore

/// Which redemptions an audit query wants; nil fields do not filter.
public struct RedemptionFilter: Sendable, Hashable {
    public var bundleId: String?
    public var offerId: String?
    public var environment: AppStoreEnvironment?
    public var matched: Bool?
    /// Inclusive lower bound on the first `purchaseDate`, ms.
    public var from: Int64?
    /// Exclusive upper bound on the first `purchaseDate`, ms.
    public var to: Int64?

    public init(bundleId: String? = nil, offerId: String? = nil, environment: AppStoreEnvironment? = nil, matched: Bool? = nil,
                from: Int64? = nil, to: Int64? = nil) {
        self.bundleId = bundleId
        self.offerId = offerId
        self.environment = environment
        self.matched = matched
        self.from = from
        self.to = to
    }
}
