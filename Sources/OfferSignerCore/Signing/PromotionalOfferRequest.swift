import Foundation

/// What a promotional-offer signature commits to, in Apple's terms.
public struct PromotionalOfferRequest: Hashable, Sendable {
    public var bundleId: String
    public var keyIdentifier: String
    public var productId: String
    public var offerId: String
    /// The app account token, signed lowercased.
    public var appAccountToken: String
    /// A lowercase UUID that is never issued twice.
    public var nonce: String
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// The transaction the offer applies to: the one the app sent, or the proven
    /// subscription's original. Signed (as the `transactionId` claim) only in the JWS format;
    /// the legacy payload has no place for it, so there it is only logged.
    public var transactionId: String?

    public init(
        bundleId: String, keyIdentifier: String, productId: String, offerId: String,
        appAccountToken: String, nonce: String, timestamp: Int64, transactionId: String? = nil
    ) {
        self.bundleId = bundleId
        self.keyIdentifier = keyIdentifier
        self.productId = productId
        self.offerId = offerId
        self.appAccountToken = appAccountToken
        self.nonce = nonce
        self.timestamp = timestamp
        self.transactionId = transactionId
    }

    /// U+2063 INVISIBLE SEPARATOR, the separator of Apple's legacy payload.
    public static let separator = "\u{2063}"

    /// The exact bytes of Apple's legacy payload:
    /// `bundleId⁣keyIdentifier⁣productId⁣offerId⁣lowercase(appAccountToken)⁣lowercase(nonce)⁣timestamp`.
    public var legacyPayload: [UInt8] {
        let fields = [bundleId, keyIdentifier, productId, offerId, appAccountToken.lowercased(), nonce.lowercased(), String(timestamp)]
        return Array(fields.joined(separator: Self.separator).utf8)
    }
}
