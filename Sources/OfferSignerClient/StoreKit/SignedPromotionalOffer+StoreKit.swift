#if canImport(StoreKit)
import Foundation
import StoreKit

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension SignedPromotionalOffer {
    /// The purchase options that apply this offer: pass them to `product.purchase(options:)`.
    ///
    /// The legacy format gives `.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`, the
    /// JWS format `.promotionalOffer(_:compactJWS:)` (back-deployed by Apple to iOS 15). When
    /// the signed app account token is a UUID, `.appAccountToken(_:)` with it is added: a legacy
    /// signature covers the token, and a purchase carrying another one (or none) fails
    /// StoreKit's check with an invalid-signature error.
    public var purchaseOptions: Set<Product.PurchaseOption> {
        var options: Set<Product.PurchaseOption> = []
        switch signature {
        case .legacy(let signature, let timestamp):
            options.insert(.promotionalOffer(offerID: offerID, keyID: keyID, nonce: nonce, signature: signature,
                                             timestamp: timestamp))
        case .jws(let compactJWS):
            options.formUnion(Product.PurchaseOption.promotionalOffer(offerID, compactJWS: compactJWS))
        }
        if let token = UUID(uuidString: appAccountToken) {
            options.insert(.appAccountToken(token))
        }
        return options
    }
}
#endif
