import Foundation
@testable import OfferSignerCore
import Testing

@Suite("Introductory-offer eligibility JWS")
struct IntroductoryEligibilityJWSTests {
    let eligibility = IntroductoryOfferEligibility(
        bundleId: "com.example.app", keyIdentifier: "ABCDEF1234", productId: "com.example.app.pro", allowIntroductoryOffer: true,
        transactionId: "2000000123", nonce: "20FBA8A0-2B80-4A7D-A17F-85C1854727F8", timestamp: 1698148900123)

    func parts(_ jws: String) throws -> (header: [String: Any], claims: [String: Any], signingInput: String, signature: Data) {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(segments.count == 3)
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(segments[0]))) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(segments[1]))) as? [String: Any]
        return (try #require(header), try #require(claims), "\(segments[0]).\(segments[1])", try #require(Base64URL.decode(segments[2])))
    }

    @Test("exactly Apple's header and claims, no exp, and an ES256 signature that verifies", arguments: [true, false])
    func claims(allow: Bool) throws {
        var eligibility = eligibility
        eligibility.allowIntroductoryOffer = allow
        let key = try P256PrivateKey.generate()
        let signer = PromotionalOfferSigner(keyIdentifier: "ABCDEF1234", issuerId: "issuer-uuid", privateKey: key)
        let jws = try signer.compactJWS(for: eligibility)
        let (header, claims, signingInput, signature) = try parts(jws)
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ABCDEF1234", "typ": "JWT"] as NSDictionary)
        #expect(Set(claims.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"])
        #expect(claims["exp"] == nil)
        #expect(claims["iss"] as? String == "issuer-uuid")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1698148900)
        #expect(claims["aud"] as? String == "introductory-offer-eligibility")
        #expect(claims["bid"] as? String == "com.example.app")
        #expect(claims["nonce"] as? String == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(claims["productId"] as? String == "com.example.app.pro")
        #expect(claims["transactionId"] as? String == "2000000123")
        // A JSON boolean, not a number or a string.
        let claimsText = String(decoding: try #require(Base64URL.decode(jws.split(separator: ".")[1])), as: UTF8.self)
        #expect(claimsText.contains("\"allowIntroductoryOffer\":\(allow)"))
        #expect(claims["allowIntroductoryOffer"] as? Bool == allow)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(rawSignature: Array(signature), of: Array(signingInput.utf8)))

        let parsed = try #require(ServerSignedJWS(jws))
        #expect(parsed.format == .introductoryOfferEligibility && parsed.claims.allowIntroductoryOffer == allow)
        #expect(parsed.isValid(under: key.publicKey))
        #expect(!parsed.isValid(under: try P256PrivateKey.generate().publicKey))
    }

    @Test("a JWS changed after signing does not verify; text that is not a JWS does not parse")
    func tampering() throws {
        let key = try P256PrivateKey.generate()
        let signer = PromotionalOfferSigner(keyIdentifier: "K", issuerId: "I", privateKey: key)
        let jws = try signer.compactJWS(for: eligibility)
        var segments = jws.split(separator: ".").map(String.init)
        var claims = try parts(jws).claims
        claims["allowIntroductoryOffer"] = false
        segments[1] = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        let forged = try #require(ServerSignedJWS(segments.joined(separator: ".")))
        #expect(!forged.isValid(under: key.publicKey))
        #expect(ServerSignedJWS("not.a.jws") == nil)
        #expect(ServerSignedJWS("only-one-segment") == nil)
    }

    @Test("without an issuer ID there is no JWS; a promotional offer is asked only in a promotional-offer format")
    func refusals() throws {
        let signer = PromotionalOfferSigner(keyIdentifier: "K", issuerId: nil, privateKey: try P256PrivateKey.generate())
        #expect(throws: PromotionalOfferSigningError.self) { try signer.compactJWS(for: eligibility) }
        // The eligibility format is not a PromotionalOfferFormat, so a signer cannot be asked for it.
        #expect(PromotionalOfferFormat.allCases.map(\.signatureFormat) == [.legacy, .jws])
        #expect(SignatureFormat.introductoryOfferEligibility.promotionalOfferFormat == nil)
    }
}
