#if canImport(StoreKit)
import StoreKit

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension IntroductoryOfferEligibility {
    /// `.introductoryOfferEligibility(compactJWS:)` with the signed decision (back-deployed by
    /// Apple to iOS 15): add it to the purchase's options whether the answer allows the offer
    /// or not, since a signed `false` is what withholds it.
    public var purchaseOption: Product.PurchaseOption {
        .introductoryOfferEligibility(compactJWS: compactJWS)
    }
}
#endif
