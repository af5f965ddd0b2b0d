import Foundation

// A test double of StoreKit, for Linux, built as a module named StoreKit for the tests of
// OfferSignerClient's StoreKit glue only. It declares exactly the StoreKit API the glue uses,
// with the signatures and availability Apple documents, so that the glue's source compiles
// here unchanged; what a test needs to see or set is internal (`@testable import StoreKit`).

/// Apple's `Product`: only its `PurchaseOption`.
public struct Product: Sendable {
    /// Apple's `Product.PurchaseOption`: a value recording which factory made it and with what.
    public struct PurchaseOption: Hashable, Sendable {
        /// What the option is (the double's record, for tests).
        enum Kind: Hashable, Sendable {
            case promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int)
            case promotionalOfferJWS(offerID: String, compactJWS: String)
            case introductoryOfferEligibility(compactJWS: String)
            case appAccountToken(UUID)
        }

        let kind: Kind

        /// `static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> Product.PurchaseOption`
        @available(iOS, introduced: 15.0, deprecated: 26.0)
        @available(macOS, introduced: 12.0, deprecated: 26.0)
        @available(tvOS, introduced: 15.0, deprecated: 26.0)
        @available(watchOS, introduced: 8.0, deprecated: 26.0)
        @available(visionOS, introduced: 1.0, deprecated: 26.0)
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data,
                                            timestamp: Int) -> Product.PurchaseOption {
            PurchaseOption(kind: .promotionalOffer(offerID: offerID, keyID: keyID, nonce: nonce, signature: signature,
                                                   timestamp: timestamp))
        }

        /// `@backDeployed(before: iOS 26.0, …) static func promotionalOffer(_ offerID: String, compactJWS: String) -> [Product.PurchaseOption]`
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
        public static func promotionalOffer(_ offerID: String, compactJWS: String) -> [Product.PurchaseOption] {
            [PurchaseOption(kind: .promotionalOfferJWS(offerID: offerID, compactJWS: compactJWS))]
        }

        /// `@backDeployed(before: iOS 18.4, …) static func introductoryOfferEligibility(compactJWS: String) -> Product.PurchaseOption`
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
        public static func introductoryOfferEligibility(compactJWS: String) -> Product.PurchaseOption {
            PurchaseOption(kind: .introductoryOfferEligibility(compactJWS: compactJWS))
        }

        /// `static func appAccountToken(_ token: UUID) -> Product.PurchaseOption`
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
        public static func appAccountToken(_ token: UUID) -> Product.PurchaseOption {
            PurchaseOption(kind: .appAccountToken(token))
        }
    }
}
