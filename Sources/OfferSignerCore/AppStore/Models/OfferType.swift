/// The type of a subscription offer.
///
/// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
public enum OfferType: Int32, Codable, Hashable, Sendable, CaseIterable {
    case introductoryOffer = 1
    case promotionalOffer = 2
    case subscriptionOfferCode = 3
    case winBackOffer = 4
    /// A retention offer the App Store itself chose, from those configured in App Store
    /// Connect, when the subscriber cancelled (since 2026).
    case retentionOffer = 5
}
