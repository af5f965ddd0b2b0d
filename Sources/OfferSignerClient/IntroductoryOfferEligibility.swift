import Foundation

/// The service's signed decision whether a customer gets a product's introductory offer (on
/// Apple platforms, `purchaseOption` builds `.introductoryOfferEligibility(compactJWS:)`).
public struct IntroductoryOfferEligibility: Sendable, Equatable {
    /// The product the decision is for.
    public let productID: String
    /// Whether the customer gets the introductory offer. A signed `false` withholds it, so
    /// pass the purchase option either way.
    public let allowIntroductoryOffer: Bool
    /// The compact ES256 JWS for `Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`.
    public let compactJWS: String
    /// The signature's one-time nonce.
    public let nonce: UUID
    /// The ID of the key that signed it.
    public let keyID: String
    /// Why the offer is withheld, one per failed criterion; empty when allowed.
    public let reasons: [EligibilityReason]

    /// A decision with these values.
    public init(productID: String, allowIntroductoryOffer: Bool, compactJWS: String, nonce: UUID, keyID: String,
                reasons: [EligibilityReason]) {
        self.productID = productID
        self.allowIntroductoryOffer = allowIntroductoryOffer
        self.compactJWS = compactJWS
        self.nonce = nonce
        self.keyID = keyID
        self.reasons = reasons
    }
}
