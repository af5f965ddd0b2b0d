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

extension EligibilityReason {
    /// Why a placement passes over an offer the product lacks at Apple, by a fresh App Store Connect catalog.
    public static func notAtApple(_ gap: CatalogOfferGap, offerId: String) -> EligibilityReason {
        EligibilityReason(criterion: "appStoreConnect", required: .bool(true), actual: .bool(false),
                          message: gap.message(offerId: offerId) + ": StoreKit would refuse it.")
    }
}
