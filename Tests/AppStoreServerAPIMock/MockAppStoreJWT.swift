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
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        guard publicKey.isValidSignature(rawSignature: Array(signature), of: signingInput) else {
            return .failure(MockServerError("bad signature"))
        }
        guard claims["iss"] as? String == issuerId else { return .failure(MockServerError("wrong iss")) }
        guard claims["aud"] as? String == "appstoreconnect-v1" else { return .failure(MockServerError("wrong aud")) }
        guard claims["bid"] as? String == bundleId else { return .failure(MockServerError("wrong bid")) }
        guard let issuedAt = (claims["iat"] as? NSNumber)?.int64Value, let expires = (claims["exp"] as? NSNumber)?.int64Value else {
            return .failure(MockServerError("iat or exp missing"))
        }
        let seconds = Int64(now.timeIntervalSince1970)
        guard expires > seconds else { return .failure(MockServerError("expired")) }
        guard expires - issuedAt <= 3600 else { return .failure(MockServerError("exp more than 60 minutes after iat")) }
        guard issuedAt <= seconds + 60 else { return .failure(MockServerError("iat in the future")) }
        return .success(Claims(issuedAt: issuedAt, expires: expires))
    }
}
