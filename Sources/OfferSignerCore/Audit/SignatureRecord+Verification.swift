import Foundation

extension SignatureRecord {
    /// Why the stored signature is not one made with `publicKey` over the record's own fields,
    /// or nil when it is: the legacy payload is rebuilt from the fields and checked against the
    /// DER signature; a JWS is checked against its ES256 signature and its header and claims
    /// must name the record's key, app, product, offer, nonce, time and transaction. So a
    /// record whose user, offer or product was changed (and re-hashed) no longer verifies.
    public func signatureProblem(publicKey: P256PublicKey) -> String? {
        switch format {
        case .legacy: legacyProblem(publicKey)
        case .jws: jwsProblem(publicKey)
        }
    }

    private func legacyProblem(_ publicKey: P256PublicKey) -> String? {
        let offer = PromotionalOfferRequest(bundleId: bundleId, keyIdentifier: keyId, productId: productId, offerId: offerId,
                                            appAccountToken: userId, nonce: nonce, timestamp: timestamp)
        guard let der = Data(base64Encoded: signature) else { return "its signature is not base64" }
        return publicKey.isValidSignature(derSignature: Array(der), of: offer.legacyPayload)
            ? nil : "its signature does not verify over its fields under key \(keyId)"
    }

    private func jwsProblem(_ publicKey: P256PublicKey) -> String? {
        let parts = signature.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let rawSignature = Base64URL.decode(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any] else {
            return "its signature is not a compact JWS with JSON header and claims"
        }
        let signingInput = Array(signature.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard publicKey.isValidSignature(rawSignature: Array(rawSignature), of: signingInput) else {
            return "its JWS signature does not verify under key \(keyId)"
        }
        var mismatches: [String] = []
        func expect(_ object: [String: Any], _ name: String, _ value: String?) {
            if (object[name] as? String) != value { mismatches.append(name) }
        }
        expect(header, "alg", "ES256")
        expect(header, "kid", keyId)
        expect(claims, "aud", "promotional-offer")
        expect(claims, "bid", bundleId)
        expect(claims, "nonce", nonce)
        expect(claims, "productId", productId)
        expect(claims, "offerIdentifier", offerId)
        expect(claims, "transactionId", transactionId)
        if (claims["iat"] as? NSNumber)?.int64Value != timestamp / 1000 { mismatches.append("iat") }
        return mismatches.isEmpty ? nil : "its JWS was signed for other values of \(mismatches.joined(separator: ", "))"
    }
}
