import Foundation
@testable import OfferSignerClient
import OfferSignerCore

/// Checks the service's signatures the way StoreKit does, with the key's public key from
/// `GET /v1/keys`.
enum SignatureCheck {
    /// Whether `offer`'s legacy signature is valid over Apple's payload: bundle ID, key ID,
    /// product ID, offer ID, app account token, nonce and timestamp joined by U+2063.
    static func legacyIsValid(_ offer: SignedPromotionalOffer, key: P256PublicKey) -> Bool {
        guard case .legacy(let signature, let timestamp) = offer.signature else { return false }
        let payload = [offer.bundleID, offer.keyID, offer.productID, offer.offerID, offer.appAccountToken.lowercased(),
                       offer.nonce.uuidString.lowercased(), String(timestamp)].joined(separator: "\u{2063}")
        return key.isValidSignature(derSignature: Array(signature), of: Array(payload.utf8))
    }

    /// Whether compact JWS `jws` is an ES256 signature by `key` whose header names `keyID`.
    static func jwsIsValid(_ jws: String, key: P256PublicKey, keyID: String) -> Bool {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let signature = Base64URL.decode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              header["alg"] as? String == "ES256", header["kid"] as? String == keyID else { return false }
        return key.isValidSignature(rawSignature: Array(signature), of: Array("\(parts[0]).\(parts[1])".utf8))
    }
}
