/// What a logged signature is: one of the two formats in which StoreKit accepts a
/// promotional-offer signature, or an introductory-offer eligibility JWS.
public enum SignatureFormat: String, Sendable, Codable, CaseIterable {
    /// Base64 DER over Apple's U+2063-separated payload (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`).
    case legacy
    /// A compact ES256 JWS (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`, iOS 18.4+).
    case jws
    /// A compact ES256 JWS with `aud` `introductory-offer-eligibility`
    /// (`Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`, iOS 18.4+): whether
    /// the customer gets the product's introductory offer. Not a promotional-offer format.
    case introductoryOfferEligibility = "introductory-offer-eligibility"

    /// The format a promotional offer was asked in; nil for introductory-offer eligibility.
    public var promotionalOfferFormat: PromotionalOfferFormat? { PromotionalOfferFormat(rawValue: rawValue) }
}
