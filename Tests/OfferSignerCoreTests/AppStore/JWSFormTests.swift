import Foundation
import Testing
@testable import OfferSignerCore

/// The form of a JWS: segments, header, x5c entries, payload and signature encodings.
@Suite struct JWSFormTests: AppStoreTransactionSuite {
    let chain = AppStoreTestChain.make()
    let verifier: SignedDataVerifier

    init() throws {
        verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
    }

    // MARK: - Header

    @Test(arguments: ["RS256", "none", "ES384", "es256", "HS256"])
    func algorithmsOtherThanES256Refused(alg: String) {
        #expect(throws: SignedDataError.unsupportedAlgorithm) {
            try verifier.verifyTransaction(header(of: signedTransaction(), alg: alg, x5c: chain.x5c))
        }
    }

    @Test func missingAlgRefused() {
        #expect(throws: SignedDataError.unsupportedAlgorithm) {
            try verifier.verifyTransaction(header(of: signedTransaction(), alg: nil, x5c: chain.x5c))
        }
    }

    @Test func unsignedAlgNoneWithEmptySignatureRefused() {
        let parts = AppStoreTestJWS.segments(header(of: signedTransaction(), alg: "none", x5c: chain.x5c))
        #expect(throws: SignedDataError.unsupportedAlgorithm) {
            try verifier.verifyTransaction(parts[0] + "." + parts[1] + ".")
        }
    }

    @Test func missingX5CRefused() {
        #expect(throws: SignedDataError.missingCertificateChain) {
            try verifier.verifyTransaction(header(of: signedTransaction(), x5c: nil))
        }
    }

    @Test(arguments: [0, 1, 2, 4])
    func x5cOfOtherThanThreeCertificatesRefused(count: Int) {
        let x5c = Array((chain.x5c + [chain.root.base64]).prefix(count))
        #expect(throws: SignedDataError.wrongCertificateCount(count)) {
            try verifier.verifyTransaction(header(of: signedTransaction(), x5c: x5c))
        }
    }

    @Test(arguments: [0, 1, 2])
    func x5cEntryThatIsNotACertificateRefused(index: Int) {
        var x5c = chain.x5c
        x5c[index] = Data("not a certificate".utf8).base64EncodedString()
        let position: CertificatePosition = [.leaf, .intermediate, .root][index]
        #expect(throws: SignedDataError.malformedCertificate(position)) {
            try verifier.verifyTransaction(header(of: signedTransaction(), x5c: x5c))
        }
    }

    @Test func x5cInBase64URLRefused() {
        var x5c = chain.x5c
        let urlSafe = x5c[0].replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        x5c[0] = urlSafe + (urlSafe == x5c[0] ? "-" : "")
        #expect(throws: SignedDataError.malformedCertificate(.leaf)) {
            try verifier.verifyTransaction(header(of: signedTransaction(), x5c: x5c))
        }
    }

    @Test func x5cCertificateWithTrailingBytesRefused() {
        var x5c = chain.x5c
        x5c[0] = Data(chain.leaf.der + [0]).base64EncodedString()
        #expect(throws: SignedDataError.malformedCertificate(.leaf)) {
            try verifier.verifyTransaction(header(of: signedTransaction(), x5c: x5c))
        }
    }

    // MARK: - Malformed input

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "....", "eyJ9.e30.e30.e30"])
    func notThreeSegmentsRefused(text: String) {
        #expect(throws: SignedDataError.notCompactJWS) { try verifier.verifyTransaction(text) }
    }

    @Test(arguments: ["!!!", "e30=x", "bm90IGpzb24", "WzEsMl0", "eyJhbGciOjF9", "eyJ4NWMiOiJhIn0", ""])
    func malformedHeaderRefused(header: String) {
        let parts = AppStoreTestJWS.segments(signedTransaction())
        let error = #expect(throws: SignedDataError.self) {
            try verifier.verifyTransaction([header, parts[1], parts[2]].joined(separator: "."))
        }
        guard case .malformedHeader = error else {
            Issue.record("expected malformedHeader, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: ["", "***", "bm90IGpzb24", "WzEsMl0", "eyJzaWduZWREYXRlIjoiMjAyNSJ9", "eyJzaWduZWREYXRlIjoxLjV9"])
    func malformedPayloadRefused(payload: String) {
        let parts = AppStoreTestJWS.segments(signedTransaction())
        let error = #expect(throws: SignedDataError.self) {
            try verifier.verifyTransaction([parts[0], payload, parts[2]].joined(separator: "."))
        }
        guard case .malformedPayload = error else {
            Issue.record("expected malformedPayload, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: ["", "***", "AAAA"])
    func malformedSignatureRefused(signature: String) {
        let parts = AppStoreTestJWS.segments(signedTransaction())
        #expect(throws: SignedDataError.malformedSignature) {
            try verifier.verifyTransaction([parts[0], parts[1], signature].joined(separator: "."))
        }
    }

    @Test func signedPayloadOfTheWrongShapeRefused() {
        let jws = AppStoreTestJWS.sign(AppStoreTestSetup.transaction(extra: ["price": "free"]), chain: chain)
        #expect(throws: SignedDataError.undecodablePayload(type: "JWSTransactionDecodedPayload",
                                                           reason: "'price' must be an integer")) {
            try verifier.verifyTransaction(jws)
        }
    }

    /// A small deterministic generator (SplitMix64), so that a failing run can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A new seed each run (more inputs over time), or `JWS_FORM_SEED` to replay one; every
    /// failure names the seed.
    @Test func hostileBytesNeverCrashNorChangeTheResult() throws {
        let seed = ProcessInfo.processInfo.environment["JWS_FORM_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(state: seed)
        // Printed first too: a trap ends the process before any expectation can name the seed.
        print("hostileBytesNeverCrashNorChangeTheResult: JWS_FORM_SEED=\(seed)")
        let valid = signedTransaction()
        let original = try verifier.verifyTransaction(valid)
        for round in 0..<300 {
            var bytes = Array(valid.utf8)
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            // A change in the unused low bits of the signature's last base64url character
            // decodes to the same signature: that may verify, but only as the original.
            if let accepted = try? verifier.verifyTransaction(String(decoding: bytes, as: UTF8.self)) {
                #expect(accepted == original, "round \(round); replay with JWS_FORM_SEED=\(seed)")
            }
        }
    }
}
