import Foundation

/// One issued signature, as the audit log keeps it.
public struct SignatureRecord: Codable, Hashable, Sendable {
    /// The lowercase UUID nonce; unique across the log.
    public var nonce: String
    public var format: SignatureFormat
    public var bundleId: String
    public var productId: String
    /// The promotional offer; empty for an introductory-offer eligibility JWS.
    public var offerId: String
    /// The lowercased app account token the signature was made for.
    public var userId: String
    public var keyId: String
    /// Apple's timestamp of the signature, milliseconds since 1970.
    public var timestamp: Int64
    /// Base64 DER signature (legacy) or the compact JWS (the other formats).
    public var signature: String
    public var transactionId: String?
    /// The name of the API key that asked for the signature.
    public var apiKeyName: String
    public var requestId: String
    /// When the record was written, milliseconds since 1970.
    public var recordedAt: Int64
    /// Who asked for the signature: an API caller, or the App Store's retention request.
    public var source: SignatureSource
    /// For an introductory-offer eligibility JWS, what it grants; nil for promotional offers.
    public var allowIntroductoryOffer: Bool?

    public init(
        nonce: String, format: SignatureFormat, bundleId: String, productId: String, offerId: String, userId: String,
        keyId: String, timestamp: Int64, signature: String, transactionId: String? = nil,
        apiKeyName: String, requestId: String, recordedAt: Int64, source: SignatureSource = .api,
        allowIntroductoryOffer: Bool? = nil
    ) {
        self.nonce = nonce
        self.format = format
        self.bundleId = bundleId
        self.productId = productId
        self.offerId = offerId
        self.userId = userId
        self.keyId = keyId
        self.timestamp = timestamp
        self.signature = signature
        self.transactionId = transactionId
        self.apiKeyName = apiKeyName
        self.requestId = requestId
        self.recordedAt = recordedAt
        self.source = source
        self.allowIntroductoryOffer = allowIntroductoryOffer
    }
}
