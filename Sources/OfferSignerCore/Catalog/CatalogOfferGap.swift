import Foundation

/// A product an offer names whose App Store Connect catalog lacks the offer as a promotional
/// offer, with what the product does have there.
public struct CatalogOfferGap: Codable, Hashable, Sendable {
    public var productId: String
    /// Whether the catalog has the product at all (as a subscription of the app).
    public var inCatalog: Bool
    /// The product's promotional offers at Apple (their `offerCode`s).
    public var promotionalOffers: [String]
    /// The product's win-back offers at Apple (their `offerId`s).
    public var winBackOffers: [String]

    public init(productId: String, inCatalog: Bool, promotionalOffers: [String], winBackOffers: [String]) {
        self.productId = productId
        self.inCatalog = inCatalog
        self.promotionalOffers = promotionalOffers
        self.winBackOffers = winBackOffers
    }

    /// Why `offerId` cannot be redeemed on the product, and what it has instead.
    public func message(offerId: String) -> String {
        guard inCatalog else { return "product '\(productId)' is not a subscription of the app in App Store Connect" }
        var text = "product '\(productId)' has no promotional offer '\(offerId)' in App Store Connect (it has "
            + (promotionalOffers.isEmpty ? "none" : promotionalOffers.map { "'\($0)'" }.joined(separator: ", ")) + ")"
        if winBackOffers.contains(offerId) { text += "; '\(offerId)' is a win-back offer of it, which is not signed" }
        return text
    }
}

extension AppStoreCatalog {
    /// The products of `productIds` that lack the promotional offer `offerId` (StoreKit's
    /// identifier, App Store Connect's `offerCode`), in order; empty when every one has it.
    public func gaps(offerId: String, productIds: [String]) -> [CatalogOfferGap] {
        productIds.compactMap { productId in
            guard let subscription = subscription(productId: productId) else {
                return CatalogOfferGap(productId: productId, inCatalog: false, promotionalOffers: [], winBackOffers: [])
            }
            guard subscription.promotionalOffer(offerId) == nil else { return nil }
            return CatalogOfferGap(productId: productId, inCatalog: true, promotionalOffers: subscription.promotionalOffers.map(\.offerCode),
                                   winBackOffers: subscription.winBackOffers.map(\.offerId))
        }
    }
}
