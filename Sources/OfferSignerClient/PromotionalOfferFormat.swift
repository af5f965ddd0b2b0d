/// How the service signs a promotional offer.
public enum PromotionalOfferFormat: String, Sendable, Equatable {
    /// The key ID, nonce, timestamp and signature of
    /// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`.
    case legacy
    /// A compact JWS for `Product.PurchaseOption.promotionalOffer(_:compactJWS:)`; with proof,
    /// bound to the customer's subscription. Needs the app's `issuerId` in the keys file.
    case jws
}
