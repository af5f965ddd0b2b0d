import Foundation
import Testing
@testable import OfferSignerCore

@Suite("JWS promotional-offer signature")
struct JWSSignatureTests {
    let request = PromotionalOfferRequest(
        bundleId: "com.example.app", keyIdentifier: "ABCDEF1234", productId: "com.example.app.pro", offerId: "winback",
        appAccountToken: "User-1", nonce: "20FBA8A0-2B80-4A7D-A17F-85C1854727F8", timestamp: 1698148900123, transactionId: "2000000123")

    func parts(_ jws: String) throws -> (header: [String: Any], claims: [String: Any], signingInput: String, signature: Data) {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(segments.count == 3)
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(segments[0]))) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(segments[1]))) as? [String: Any]
        #expect(!jws.contains("="), "base64url without padding")
        return (try #require(header), try #require(claims), "\(segments[0]).\(segments[1])", try #require(Base64URL.decode(segments[2])))
    }

    @Test("header, claims and R‖S signature are what StoreKit expects")
    func headerClaimsSignature() throws {
        let key = try P256PrivateKey.generate()
        let signer = PromotionalOfferSigner(keyIdentifier: "ABCDEF1234", issuerId: "issuer-uuid", privateKey: key)
        let (header, claims, signingInput, signature) = try parts(try signer.compactJWS(for: request))
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ABCDEF1234", "typ": "JWT"] as NSDictionary)
        #expect(claims["iss"] as? String == "issuer-uuid")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1698148900)
        #expect(claims["aud"] as? String == "promotional-offer")
        #expect(claims["bid"] as? String == "com.example.app")
        #expect(claims["nonce"] as? String == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(claims["productId"] as? String == "com.example.app.pro")
        #expect(claims["offerIdentifier"] as? String == "winback")
        #expect(claims["transactionId"] as? String == "2000000123")
        #expect(claims["exp"] == nil)
        #expect(Set(claims.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier", "transactionId"])
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(rawSignature: Array(signature), of: Array(signingInput.utf8)))
        #expect(!key.publicKey.isValidSignature(rawSignature: Array(signature), of: Array((signingInput + "x").utf8)))
    }

    @Test("transactionId is left out when the request has none")
    func noTransactionId() throws {
        var request = request
        request.transactionId = nil
        let signer = PromotionalOfferSigner(keyIdentifier: "K", issuerId: "I", privateKey: try P256PrivateKey.generate())
        #expect(try parts(try signer.compactJWS(for: request)).claims["transactionId"] == nil)
    }

    @Test("without an issuer ID the JWS format is refused")
    func needsIssuer() throws {
        let signer = PromotionalOfferSigner(keyIdentifier: "K", issuerId: nil, privateKey: try P256PrivateKey.generate())
        #expect(throws: PromotionalOfferSigningError.self) { try signer.compactJWS(for: request) }
    }

    @Test("JSON strings are escaped exactly")
    func escaping() {
        #expect(JSONValue.string("a\"b\\c\n\u{1}").encoded == "\"a\\\"b\\\\c\\n\\u0001\"")
    }
}
