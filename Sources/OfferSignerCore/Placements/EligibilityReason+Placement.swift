import Foundation

extension EligibilityReason {
    /// Why a placement passes over an offer it lists that the app no longer has.
    public static func offerNotConfigured() -> EligibilityReason {
        EligibilityReason(criterion: "offerId", required: .bool(true), actual: .bool(false),
                          message: "The placement lists this offer, but the app has no such offer rule.")
    }

    /// Why a placement passes over an offer that is not for the product asked about.
    public static func productNotInOffer(_ productId: String) -> EligibilityReason {
        EligibilityReason(criterion: "productIds", required: .bool(true), actual: .bool(false),
                          message: "This offer is not for product '\(productId)'.")
    }
}
