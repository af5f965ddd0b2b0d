/// The two formats in which StoreKit accepts a promotional-offer signature.
public enum SignatureFormat: String, Sendable, Codable, CaseIterable {
    /// Base64 DER over Apple's U+2063-separated payload (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`).
    case legacy
    /// A compact ES256 JWS (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`, iOS 18.4+).
    case jws
}
