import Foundation
import OfferSignerCore

/// The App Store Connect API's check of a request's bearer token, as Apple documents it: an
/// ES256 JWT with `kid` and `typ` JWT, signed by the Team key the mock knows, `iss` the issuer,
/// `aud` `appstoreconnect-v1`, not expired, and `exp` at most 20 minutes after `iat` and after now.
public struct MockAppStoreConnectJWT: Sendable {
    public let keyId: String
    public let issuerId: String
    public let publicKey: P256PublicKey

    public init(keyId: String, issuerId: String, publicKey: P256PublicKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.publicKey = publicKey
    }

    /// The accepted token's claims.
    public struct Claims: Sendable, Equatable {
        public let issuedAt: Int64
        public let expires: Int64
    }

    public func check(authorization: String?, now: Date) -> Result<Claims, MockServerError> {
        MockBearerJWT.check(authorization: authorization, keyId: keyId, issuerId: issuerId, publicKey: publicKey, now: now) { issuedAt, expires, now in
            expires - issuedAt <= 1200 && expires - now <= 1200 ? nil : MockServerError("exp more than 20 minutes ahead")
        }.map { Claims(issuedAt: $0.issuedAt, expires: $0.expires) }
    }
}
