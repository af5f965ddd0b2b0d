import Foundation
import OfferSignerCore

/// The App Store Server API's check of a request's bearer token, as Apple documents it: an
/// ES256 JWT with `kid` and `typ` JWT, signed by the key the mock knows, `iss`, `aud`
/// `appstoreconnect-v1`, `bid` of the app, not expired, and `exp` at most 60 minutes after `iat`.
public struct MockAppStoreJWT: Sendable {
    public let keyId: String
    public let issuerId: String
    public let bundleId: String
    public let publicKey: P256PublicKey

    public init(keyId: String, issuerId: String, bundleId: String, publicKey: P256PublicKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.publicKey = publicKey
    }

    /// The accepted token's claims, or why it is refused.
    public struct Claims: Sendable, Equatable {
        public let issuedAt: Int64
        public let expires: Int64
    }

    public func check(authorization: String?, now: Date) -> Result<Claims, MockServerError> {
        MockBearerJWT.check(authorization: authorization, keyId: keyId, issuerId: issuerId, publicKey: publicKey,
                            claims: [("bid", bundleId)], now: now) { issuedAt, expires, _ in
            expires - issuedAt <= 3600 ? nil : MockServerError("exp more than 60 minutes after iat")
        }.map { Claims(issuedAt: $0.issuedAt, expires: $0.expires) }
    }
}
