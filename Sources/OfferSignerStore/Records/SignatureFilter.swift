import OfferSignerCore

/// Which records an audit query wants; nil fields do not filter.
public struct SignatureFilter: Sendable, Hashable {
    public var userId: String?
    public var offerId: String?
    public var productId: String?
    public var bundleId: String?
    public var keyId: String?
    /// Who asked: the API or the App Store's retention request.
    public var source: SignatureSource?
    public var format: SignatureFormat?
    /// Inclusive lower bound on `timestamp`, milliseconds.
    public var fromTimestamp: Int64?
    /// Exclusive upper bound on `timestamp`, milliseconds.
    public var toTimestamp: Int64?

    public init(userId: String? = nil, offerId: String? = nil, productId: String? = nil, bundleId: String? = nil,
                keyId: String? = nil, source: SignatureSource? = nil, format: SignatureFormat? = nil,
                fromTimestamp: Int64? = nil, toTimestamp: Int64? = nil) {
        self.userId = userId
        self.offerId = offerId
        self.productId = productId
        self.bundleId = bundleId
        self.keyId = keyId
        self.source = source
        self.format = format
        self.fromTimestamp = fromTimestamp
        self.toTimestamp = toTimestamp
    }
}
