import Foundation

/// A signed promotional offer: what the signature commits to, in which format, and the
/// signature. The one value from which both the log record and the caller's answer are made,
/// so the fields they carry cannot drift apart.
public struct IssuedOffer: Hashable, Sendable {
    /// The signed fields (bundle, key, product, offer, token, nonce, timestamp, transaction).
    public let offer: PromotionalOfferRequest
    public let format: PromotionalOfferFormat
    /// Base64 DER signature (legacy) or the compact JWS (jws).
    public let signature: String

    /// How long StoreKit accepts a signature: 24 hours after its timestamp.
    public static let lifetimeMilliseconds: Int64 = 86_400_000

    /// When StoreKit stops accepting the signature.
    public var expiresAt: Date { Date(milliseconds: offer.timestamp + Self.lifetimeMilliseconds) }
}

extension PromotionalOfferSigner {
    /// Signs `offer` in `format`.
    public func issue(_ offer: PromotionalOfferRequest, format: PromotionalOfferFormat) throws(PromotionalOfferSigningError) -> IssuedOffer {
        let signature: String
        switch format {
        case .legacy:
            signature = try legacySignature(for: offer)
        case .jws:
            signature = try compactJWS(for: offer)
        }
        return IssuedOffer(offer: offer, format: format, signature: signature)
    }
}

extension SignatureRecord {
    /// The log record of `issued`, asked for by the API key `apiKeyName` (or, from `source`
    /// `retention`, by the App Store) in request `requestId`.
    public init(_ issued: IssuedOffer, apiKeyName: String, requestId: String, recordedAt: Int64, source: SignatureSource = .api) {
        let offer = issued.offer
        self.init(nonce: offer.nonce, format: issued.format.signatureFormat, bundleId: offer.bundleId, productId: offer.productId,
                  offerId: offer.offerId, userId: offer.appAccountToken, keyId: offer.keyIdentifier, timestamp: offer.timestamp,
                  signature: issued.signature, transactionId: offer.transactionId, apiKeyName: apiKeyName,
                  requestId: requestId, recordedAt: recordedAt, source: source)
    }
}
