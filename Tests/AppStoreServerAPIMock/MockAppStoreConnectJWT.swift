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
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .failure(MockServerError("no bearer token")) }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any] else {
            return .failure(MockServerError("not a compact JWS"))
        }
        guard header["alg"] as? String == "ES256", header["typ"] as? String == "JWT" else {
            return .failure(MockServerError("header is not alg ES256, typ JWT"))
        }
        guard header["kid"] as? String == keyId else { return .failure(MockServerError("unknown kid")) }
        guard publicKey.isValidSignature(rawSignature: Array(signature), of: Array("\(parts[0]).\(parts[1])".utf8)) else {
            return .failure(MockServerError("bad signature"))
        }
        guard claims["iss"] as? String == issuerId else { return .failure(MockServerError("wrong iss")) }
        guard claims["aud"] as? String == "appstoreconnect-v1" else { return .failure(MockServerError("wrong aud")) }
        guard let issuedAt = (claims["iat"] as? NSNumber)?.int64Value, let expires = (claims["exp"] as? NSNumber)?.int64Value else {
            return .failure(MockServerError("iat or exp missing"))
        }
        let seconds = Int64(now.timeIntervalSince1970)
        guard expires > seconds else { return .failure(MockServerError("expired")) }
        guard expires - issuedAt <= 1200, expires - seconds <= 1200 else {
            return .failure(MockServerError("exp more than 20 minutes ahead"))
        }
        guard issuedAt <= seconds + 60 else { return .failure(MockServerError("iat in the future")) }
        return .success(Claims(issuedAt: issuedAt, expires: expires))
    }
}
