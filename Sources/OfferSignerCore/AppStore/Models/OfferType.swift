/// The type of a subscription offer.
///
/// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
public enum OfferType: Int32, Codable, Hashable, Sendable, CaseIterable {
    case introductoryOffer = 1
    case promotionalOffer = 2
    case subscriptionOfferCode = 3
    case winBackOffer = 4
}
