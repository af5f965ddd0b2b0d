import OfferSignerCore

/// What an offer is known by: its app and its offer ID.
public struct OfferKey: Sendable, Hashable, Comparable {
    public var bundleId: String
    public var offerId: String

    public init(bundleId: String, offerId: String) {
        self.bundleId = bundleId
        self.offerId = offerId
    }

    /// The key of `rule`'s offer.
    public init(_ rule: OfferRule) {
        self.init(bundleId: rule.bundleId, offerId: rule.offerId)
    }

    public static func < (a: OfferKey, b: OfferKey) -> Bool {
        (a.bundleId, a.offerId) < (b.bundleId, b.offerId)
    }
}
