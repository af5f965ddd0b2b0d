import Foundation
import OfferSignerCore

/// What Apple's two APIs check alike in a request's bearer token (``MockAppStoreJWT``,
/// ``MockAppStoreConnectJWT``): a compact ES256 JWS, `typ` JWT, the known `kid`, signed by the
/// known key, `iss`, `aud` `appstoreconnect-v1`, each of `claims` equal, `iat` and `exp`
/// present, not expired, the API's own bound on the token's life (`lifetime`, nil when it
/// holds), and `iat` not in the future.
enum MockBearerJWT {
    static func check(authorization: String?, keyId: String, issuerId: String, publicKey: P256PublicKey,
                      claims expected: [(String, String)] = [], now: Date,
                      lifetime: (_ issuedAt: Int64, _ expires: Int64, _ now: Int64) -> MockServerError?)
        -> Result<(issuedAt: Int64, expires: Int64), MockServerError> {
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
        for (name, value) in expected where claims[name] as? String != value {
            return .failure(MockServerError("wrong \(name)"))
        }
        guard let issuedAt = (claims["iat"] as? NSNumber)?.int64Value, let expires = (claims["exp"] as? NSNumber)?.int64Value else {
            return .failure(MockServerError("iat or exp missing"))
        }
        let seconds = Int64(now.timeIntervalSince1970)
        guard expires > seconds else { return .failure(MockServerError("expired")) }
        if let refusal = lifetime(issuedAt, expires, seconds) { return .failure(refusal) }
        guard issuedAt <= seconds + 60 else { return .failure(MockServerError("iat in the future")) }
        return .success((issuedAt, expires))
    }
}
