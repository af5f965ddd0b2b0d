/// The format a caller asks a promotional offer to be signed in: one of the two StoreKit
/// accepts. (What a logged record is, introductory-offer eligibility included, is
/// ``SignatureFormat``.)
public enum PromotionalOfferFormat: String, Sendable, Codable, CaseIterable {
    /// Base64 DER over Apple's U+2063-separated payload (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`).
    case legacy
    /// A compact ES256 JWS (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`, iOS 18.4+).
    case jws

    /// The kind of record a signature in this format is logged as.
    public var signatureFormat: SignatureFormat {
        switch self {
        case .legacy: .legacy
        case .jws: .jws
        }
    }
}
