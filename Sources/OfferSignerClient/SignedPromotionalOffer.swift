import Foundation

/// A promotional offer the service signed for a customer: what StoreKit needs to apply it to a
/// purchase (on Apple platforms, `purchaseOptions` builds the `Product.PurchaseOption`s).
public struct SignedPromotionalOffer: Sendable, Equatable {
    /// The signature itself, in the format asked for.
    public enum Signature: Sendable, Equatable {
        /// The legacy format: an ECDSA P-256 / SHA-256 signature (DER) and the time it was made,
        /// in milliseconds since 1970.
        case legacy(signature: Data, timestamp: Int)
        /// A compact ES256 JWS.
        case jws(compactJWS: String)
    }

    /// The app's bundle ID.
    public let bundleID: String
    /// The subscription product the offer applies to.
    public let productID: String
    /// The offer's identifier in App Store Connect.
    public let offerID: String
    /// The app account token signed (lowercased), or empty for a customer without one; the
    /// purchase must carry the same token for a legacy signature to be accepted.
    public let appAccountToken: String
    /// The ID of the In-App Purchase key that signed it.
    public let keyID: String
    /// The one-time nonce.
    public let nonce: UUID
    /// When StoreKit stops accepting the signature (24 hours after it was made).
    public let expiresAt: Date
    /// The signature.
    public let signature: Signature

    /// An offer with these values.
    public init(bundleID: String, productID: String, offerID: String, appAccountToken: String, keyID: String,
                nonce: UUID, expiresAt: Date, signature: Signature) {
        self.bundleID = bundleID
        self.productID = productID
        self.offerID = offerID
        self.appAccountToken = appAccountToken
        self.keyID = keyID
        self.nonce = nonce
        self.expiresAt = expiresAt
        self.signature = signature
    }
}
