import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Legacy promotional-offer signature")
struct LegacySignatureTests {
    /// Apple's library test inputs (fixtures README).
    let appleInputs = PromotionalOfferRequest(
        bundleId: "bundleId", keyIdentifier: "keyId", productId: "productId", offerId: "offerId",
        appAccountToken: "appAccountToken", nonce: "20fba8a0-2b80-4a7d-a17f-85c1854727f8", timestamp: 1698148900000)

    func appleTestKey() throws -> P256PrivateKey {
        try P256PrivateKey(pkcs8PEM: SigningFixtures.text("apple/testSigningKey.p8"))
    }

    func applePublicKey() throws -> P256PublicKey {
        try P256PublicKey(spkiDER: Array(Data(base64Encoded: SigningFixtures.appleTestPublicKeySPKI)!))
    }

    @Test("payload is the U+2063-joined fields, byte for byte")
    func payloadBytes() {
        let sep: [UInt8] = [0xE2, 0x81, 0xA3]
        var expected: [UInt8] = []
        for (index, field) in ["bundleId", "keyId", "productId", "offerId", "appaccounttoken",
                               "20fba8a0-2b80-4a7d-a17f-85c1854727f8", "1698148900000"].enumerated() {
            if index > 0 { expected += sep }
            expected += Array(field.utf8)
        }
        #expect(appleInputs.legacyPayload == expected)
        #expect(appleInputs.legacyPayload.count == 93 + 6 * 3)
    }

    @Test("app account token and nonce are lowercased in the payload")
    func lowercasing() {
        var request = appleInputs
        request.appAccountToken = "ABCDEF01-AAAA-BBBB-CCCC-DDDDDDDDDDDD"
        request.nonce = "20FBA8A0-2B80-4A7D-A17F-85C1854727F8"
        let text = String(decoding: request.legacyPayload, as: UTF8.self)
        #expect(text.contains("abcdef01-aaaa-bbbb-cccc-dddddddddddd"))
        #expect(text.contains("20fba8a0-2b80-4a7d-a17f-85c1854727f8"))
        #expect(!text.contains("ABCDEF01"))
    }

    @Test("the fixture key's public half is the one Apple publishes")
    func fixtureKeyMatchesPublishedPublicKey() throws {
        #expect(try appleTestKey().publicKey.spkiDER == applePublicKey().spkiDER)
    }

    @Test("signature verifies under Apple's test public key, and only over the exact payload")
    func signatureVerifies() throws {
        let signer = PromotionalOfferSigner(keyIdentifier: "keyId", issuerId: nil, privateKey: try appleTestKey())
        let base64 = try signer.legacySignature(for: appleInputs)
        let der = try #require(Data(base64Encoded: base64))
        let publicKey = try applePublicKey()
        #expect(der.first == 0x30, "DER SEQUENCE")
        #expect(publicKey.isValidSignature(derSignature: Array(der), of: appleInputs.legacyPayload))
        var tampered = appleInputs
        tampered.timestamp += 1
        #expect(!publicKey.isValidSignature(derSignature: Array(der), of: tampered.legacyPayload))
        let other = try P256PrivateKey.generate().publicKey
        #expect(!other.isValidSignature(derSignature: Array(der), of: appleInputs.legacyPayload))
    }

    @Test("signatures are randomized: two signatures differ and both verify")
    func randomized() throws {
        let key = try appleTestKey()
        let first = try key.signDER(appleInputs.legacyPayload)
        let second = try key.signDER(appleInputs.legacyPayload)
        #expect(first != second)
        #expect(key.publicKey.isValidSignature(derSignature: second, of: appleInputs.legacyPayload))
    }
}

@Suite("Legacy payload written field by field (issue 38)")
struct LegacyPayloadBytesTests {
    @Test("the same bytes as the fields joined by U+2063 with the token and nonce lowercased, over 20,000 random requests")
    func sameBytesAsJoined() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "com.example", "0", "-", "İ", "É", "ß", "\u{2063}", "Σ", "x\u{301}", "ÅB", "KELVIN\u{212A}", " "]
        func text() -> String {
            (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        for _ in 0..<20_000 {
            let request = PromotionalOfferRequest(bundleId: text(), keyIdentifier: text(), productId: text(), offerId: text(),
                                                  appAccountToken: text(), nonce: text(),
                                                  timestamp: Int64.random(in: .min ... .max, using: &generator))
            let joined = [request.bundleId, request.keyIdentifier, request.productId, request.offerId,
                          request.appAccountToken.lowercased(), request.nonce.lowercased(), String(request.timestamp)]
                .joined(separator: PromotionalOfferRequest.separator)
            #expect(request.legacyPayload == Array(joined.utf8), "\(joined.debugDescription)")
        }
    }
}
