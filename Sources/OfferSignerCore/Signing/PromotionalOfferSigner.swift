import Foundation

/// Signs promotional offers with one App Store In-App Purchase key, in both of Apple's formats.
public struct PromotionalOfferSigner: Sendable {
    /// The key ID from App Store Connect.
    public let keyIdentifier: String
    /// The issuer ID from App Store Connect; needed only for the JWS format.
    public let issuerId: String?
    /// The key: a `.p8` file's or a hardware module's.
    let privateKey: any P256SigningKey

    public init(keyIdentifier: String, issuerId: String?, privateKey: any P256SigningKey) {
        self.keyIdentifier = keyIdentifier
        self.issuerId = issuerId
        self.privateKey = privateKey
    }

    /// Base64 of the DER ECDSA P-256 / SHA-256 signature over `request.legacyPayload`.
    public func legacySignature(for request: PromotionalOfferRequest) throws(PromotionalOfferSigningError) -> String {
        do {
            return Data(try privateKey.derSignature(request.legacyPayload)).base64EncodedString()
        } catch {
            throw PromotionalOfferSigningError(error)
        }
    }

    /// A compact ES256 JWS for `Product.PurchaseOption.promotionalOffer(_:compactJWS:)`.
    public func compactJWS(for request: PromotionalOfferRequest) throws(PromotionalOfferSigningError) -> String {
        var claims: [(String, JSONValue)] = [
            ("productId", .string(request.productId)),
            ("offerIdentifier", .string(request.offerId)),
        ]
        if let transactionId = request.transactionId {
            claims.append(("transactionId", .string(transactionId)))
        }
        return try signedJWS(audience: "promotional-offer", bundleId: request.bundleId, nonce: request.nonce,
                             timestamp: request.timestamp, claims: claims)
    }

    /// A compact ES256 JWS for `Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`:
    /// exactly the claims `iss`, `iat`, `aud` (`introductory-offer-eligibility`), `bid`,
    /// `nonce`, `productId`, `allowIntroductoryOffer` and `transactionId`, and no `exp`
    /// (StoreKit refuses a token that carries one).
    public func compactJWS(for eligibility: IntroductoryOfferEligibility) throws(PromotionalOfferSigningError) -> String {
        try signedJWS(audience: IntroductoryOfferEligibility.audience, bundleId: eligibility.bundleId, nonce: eligibility.nonce,
                      timestamp: eligibility.timestamp, claims: [
                          ("productId", .string(eligibility.productId)),
                          ("allowIntroductoryOffer", .bool(eligibility.allowIntroductoryOffer)),
                          ("transactionId", .string(eligibility.transactionId)),
                      ])
    }

    /// `header.claims.signature` with the header `alg` ES256, `kid`, `typ` JWT and the claims
    /// `iss`, `iat` (whole seconds of `timestamp`), `aud`, `bid`, `nonce` (lowercased), then `claims`.
    private func signedJWS(audience: String, bundleId: String, nonce: String, timestamp: Int64,
                           claims: [(String, JSONValue)]) throws(PromotionalOfferSigningError) -> String {
        guard let issuerId else { throw .missingIssuerId }
        let header = JSONValue.object([("alg", "ES256"), ("kid", keyIdentifier), ("typ", "JWT")].map { ($0.0, JSONValue.string($0.1)) })
        let all: [(String, JSONValue)] = [
            ("iss", .string(issuerId)),
            ("iat", .int(Int(timestamp / 1000))),
            ("aud", .string(audience)),
            ("bid", .string(bundleId)),
            ("nonce", .string(nonce.lowercased())),
        ] + claims
        let signingInput = Base64URL.encode(header.utf8) + "." + Base64URL.encode(JSONValue.object(all).utf8)
        let raw: [UInt8]
        do {
            raw = try privateKey.rawSignature(Array(signingInput.utf8))
        } catch {
            throw PromotionalOfferSigningError(error)
        }
        return signingInput + "." + Base64URL.encode(raw)
    }
}

/// Why a promotional offer could not be signed.
public enum PromotionalOfferSigningError: Error, CustomStringConvertible, Sendable {
    case missingIssuerId
    case openSSL(OpenSSLError)
    /// The key's hardware module cannot sign now (see ``SigningKeyError/keyUnavailable(_:)``).
    case keyUnavailable(String)

    init(_ error: SigningKeyError) {
        switch error {
        case .openSSL(let error): self = .openSSL(error)
        case .keyUnavailable(let reason): self = .keyUnavailable(reason)
        }
    }

    public var description: String {
        switch self {
        case .missingIssuerId: "the JWS format needs the app's issuerId in the keys file"
        case .openSSL(let error): error.description
        case .keyUnavailable(let reason): SigningKeyError.keyUnavailable(reason).description
        }
    }
}
