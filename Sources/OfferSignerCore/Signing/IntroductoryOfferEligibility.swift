import Foundation

/// What an introductory-offer eligibility JWS commits to, in Apple's terms: whether the
/// customer of `transactionId` gets the introductory offer of `productId`.
public struct IntroductoryOfferEligibility: Hashable, Sendable {
    /// The JWS's `aud` claim.
    public static let audience = "introductory-offer-eligibility"

    public var bundleId: String
    public var keyIdentifier: String
    public var productId: String
    public var allowIntroductoryOffer: Bool
    /// Any transaction of the customer (the customer's `appTransactionId` is accepted).
    public var transactionId: String
    /// A lowercase UUID that is never issued twice.
    public var nonce: String
    /// Milliseconds since 1970; the JWS's `iat` is its whole seconds.
    public var timestamp: Int64

    public init(bundleId: String, keyIdentifier: String, productId: String, allowIntroductoryOffer: Bool,
                transactionId: String, nonce: String, timestamp: Int64) {
        self.bundleId = bundleId
        self.keyIdentifier = keyIdentifier
        self.productId = productId
        self.allowIntroductoryOffer = allowIntroductoryOffer
        self.transactionId = transactionId
        self.nonce = nonce
        self.timestamp = timestamp
    }
}

/// A signed introductory-offer eligibility: what the JWS says, and the JWS.
public struct IssuedIntroductoryOfferEligibility: Hashable, Sendable {
    public let eligibility: IntroductoryOfferEligibility
    /// The compact JWS for `Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`.
    public let jws: String
}

extension PromotionalOfferSigner {
    /// Signs `eligibility` as a compact JWS.
    public func issue(_ eligibility: IntroductoryOfferEligibility) throws(PromotionalOfferSigningError) -> IssuedIntroductoryOfferEligibility {
        IssuedIntroductoryOfferEligibility(eligibility: eligibility, jws: try compactJWS(for: eligibility))
    }
}

extension SignatureRecord {
    /// The log record of `issued` for `userId` (the lowercased app account token), asked for
    /// by the API key `apiKeyName` in request `requestId`. It names no offer (`offerId` is empty).
    public init(_ issued: IssuedIntroductoryOfferEligibility, userId: String, apiKeyName: String, requestId: String, recordedAt: Int64) {
        let e = issued.eligibility
        self.init(nonce: e.nonce, format: .introductoryOfferEligibility, bundleId: e.bundleId, productId: e.productId,
                  offerId: "", userId: userId, keyId: e.keyIdentifier, timestamp: e.timestamp, signature: issued.jws,
                  transactionId: e.transactionId, apiKeyName: apiKeyName, requestId: requestId, recordedAt: recordedAt,
                  source: .api, allowIntroductoryOffer: e.allowIntroductoryOffer)
    }
}
