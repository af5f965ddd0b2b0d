import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Private and public keys")
struct KeyLoadingTests {
    @Test("a generated key round-trips through PKCS#8 PEM")
    func roundTrip() throws {
        let key = try P256PrivateKey.generate()
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try P256PrivateKey(pkcs8PEM: key.pkcs8PEM)
        #expect(reloaded.publicKey.spkiDER == key.publicKey.spkiDER)
        let pem = key.publicKey.pem
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(try P256PublicKey(pem: pem).spkiDER == key.publicKey.spkiDER)
    }

    @Test("garbage, truncated and non-PKCS#8 PEM are refused")
    func refusals() {
        #expect(throws: KeyError.self) { try P256PrivateKey(pkcs8PEM: "hello") }
        #expect(throws: KeyError.self) {
            try P256PrivateKey(pkcs8PEM: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n")
        }
        #expect(throws: KeyError.self) {
            try P256PrivateKey(pkcs8PEM: "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n")
        }
    }

    @Test("a P-384 key is refused as not P-256")
    func otherCurve() throws {
        // A P-384 PKCS#8 key generated with `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384`.
        let p384 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDCPkE2GMfOxg38gtJk5
        n2d7j4/KsDS7ezN0sm5wlebkFsI5/6xjrlr8O0nar5odYguhZANiAATBrW5F9l6O
        LEbuY0UmSPbiabkbKn1lffmamoDoABQ1FK/kWoDXdVh1K9jbjTRn5XCOfzq7ags0
        NlfUuUkDrxxfRfzC9X5ccEH7g1Wz03Kffdaurs+V6hR0lcMcXuq2IpY=
        -----END PRIVATE KEY-----
        """
        #expect(throws: KeyError.notP256) { try P256PrivateKey(pkcs8PEM: p384) }
    }

    @Test("DER and R‖S signature forms convert both ways")
    func signatureEncoding() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("message".utf8)
        let der = try key.signDER(message)
        let raw = try #require(ECDSASignatureEncoding.raw(fromDER: der))
        #expect(raw.count == 64)
        #expect(ECDSASignatureEncoding.der(fromRaw: raw) == der)
        #expect(key.publicKey.isValidSignature(rawSignature: raw, of: message))
        #expect(ECDSASignatureEncoding.raw(fromDER: [0x30, 0x01]) == nil)
        #expect(ECDSASignatureEncoding.der(fromRaw: Array(raw.prefix(63))) == nil)
    }
}
