import Foundation
import Testing
@testable import OfferSignerCore

/// The signature, the chain of trust and the validity at signedDate, with chains the tests make.
@Suite struct SignatureAndChainTests: AppStoreTransactionSuite {
    let chain = AppStoreTestChain.make()
    let verifier: SignedDataVerifier

    init() throws {
        verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
    }

    // MARK: - Valid data

    @Test func validTransactionVerifiesAndDecodes() throws {
        let transaction = try verifier.verifyTransaction(signedTransaction())
        #expect(transaction.transactionId == "2000000123456789")
        #expect(transaction.bundleId == AppStoreTestSetup.bundleId)
        #expect(transaction.environment == .production)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.price == 9_990)
        #expect(transaction.signedDate == AppStoreTestSetup.milliseconds(AppStoreTestSetup.signedAt))
    }

    // MARK: - Signature

    @Test func tamperedPayloadRefused() {
        let tampered = AppStoreTestJWS.replacingPayload(
            of: signedTransaction(), with: AppStoreTestJWS.json(AppStoreTestSetup.transaction(extra: ["price": 0])))
        #expect(throws: SignedDataError.invalidSignature) { try verifier.verifyTransaction(tampered) }
    }

    @Test func tamperedSignatureRefused() {
        var parts = AppStoreTestJWS.segments(signedTransaction())
        var signature = Array(Base64URL.decode(parts[2])!)
        signature[10] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        #expect(throws: SignedDataError.invalidSignature) { try verifier.verifyTransaction(parts.joined(separator: ".")) }
    }

    @Test func signatureByAnotherKeyRefused() {
        let jws = AppStoreTestJWS.sign(payloadJSON: AppStoreTestJWS.json(AppStoreTestSetup.transaction()),
                                       header: ["alg": "ES256", "x5c": chain.x5c], key: chain.intermediate.key)
        #expect(throws: SignedDataError.invalidSignature) { try verifier.verifyTransaction(jws) }
    }

    @Test func derSignatureInsteadOfRawRefused() throws {
        var parts = AppStoreTestJWS.segments(signedTransaction())
        let raw = Array(Base64URL.decode(parts[2])!)
        parts[2] = Base64URL.encode(ECDSASignatureEncoding.der(fromRaw: raw)!)
        #expect(throws: SignedDataError.malformedSignature) { try verifier.verifyTransaction(parts.joined(separator: ".")) }
    }

    // MARK: - Chain of trust

    @Test func untrustedRootRefused() {
        #expect(throws: SignedDataError.untrustedChain) {
            try verifier.verifyTransaction(signedTransaction(AppStoreTestChain.make()))
        }
    }

    @Test func x5cRootIsNeverTrusted() {
        // An attacker's chain that presents the configured root as x5c[2].
        let forged = AppStoreTestChain.make()
        let jws = AppStoreTestJWS.sign(payloadJSON: AppStoreTestJWS.json(AppStoreTestSetup.transaction()),
                                       header: ["alg": "ES256", "x5c": [forged.leaf.base64, forged.intermediate.base64, chain.root.base64]],
                                       key: forged.leaf.key)
        #expect(throws: SignedDataError.untrustedChain) { try verifier.verifyTransaction(jws) }
    }

    @Test func rootWithTheTrustedNameButAnotherKeyRefused() {
        let impostor = AppStoreTestChain.make(root: AppStoreTestPKI.root(name: "Test Root CA"))
        #expect(throws: SignedDataError.untrustedChain) { try verifier.verifyTransaction(signedTransaction(impostor)) }
    }

    @Test func leafAndIntermediateSwappedRefused() {
        let jws = AppStoreTestJWS.sign(payloadJSON: AppStoreTestJWS.json(AppStoreTestSetup.transaction()),
                                       header: ["alg": "ES256", "x5c": [chain.intermediate.base64, chain.leaf.base64, chain.root.base64]],
                                       key: chain.intermediate.key)
        // OpenSSL builds intermediate → root and never uses the "intermediate": not Apple's 3-certificate chain.
        let error = #expect(throws: SignedDataError.self) { try verifier.verifyTransaction(jws) }
        guard case .invalidChain(.intermediate, _) = error else {
            Issue.record("expected invalidChain at the intermediate, got \(String(describing: error))")
            return
        }
    }

    @Test func leafWithoutAppleOIDRefused() throws {
        let chain = AppStoreTestChain.make(root: chain.root, leafOID: nil)
        #expect(throws: SignedDataError.missingAppleExtension(.leaf, oid: "1.2.840.113635.100.6.11.1")) {
            try verifier.verifyTransaction(signedTransaction(chain))
        }
    }

    @Test func leafWithANeighbouringOIDRefused() throws {
        let chain = AppStoreTestChain.make(root: chain.root, leafOID: "1.2.840.113635.100.6.11.2")
        #expect(throws: SignedDataError.missingAppleExtension(.leaf, oid: "1.2.840.113635.100.6.11.1")) {
            try verifier.verifyTransaction(signedTransaction(chain))
        }
    }

    @Test func intermediateWithoutAppleOIDRefused() throws {
        let chain = AppStoreTestChain.make(root: chain.root, intermediateOID: false)
        #expect(throws: SignedDataError.missingAppleExtension(.intermediate, oid: "1.2.840.113635.100.6.2.1")) {
            try verifier.verifyTransaction(signedTransaction(chain))
        }
    }

    @Test func certificateWithoutBasicConstraintsAsIntermediateRefusedInStrictMode() throws {
        // An "intermediate" that is not a CA: OpenSSL refuses it as an issuer.
        let notCA = AppStoreTestPKI.issue(commonName: "Not a CA", issuer: chain.root, validity: AppStoreTestPKI.defaultValidity,
                                          extensions: [("keyUsage", "critical,digitalSignature"),
                                                       ("subjectKeyIdentifier", "hash"),
                                                       ("authorityKeyIdentifier", "keyid:always"),
                                                       (AppStoreChainVerifier.intermediateOID, "DER:05:00")])
        let leaf = AppStoreTestPKI.leaf(issuer: notCA)
        let error = #expect(throws: SignedDataError.self) {
            try verifier.verifyTransaction(signedTransaction(AppStoreTestChain(root: chain.root, intermediate: notCA, leaf: leaf)))
        }
        guard case .invalidChain(.intermediate, _) = error else {
            Issue.record("expected invalidChain at the intermediate, got \(String(describing: error))")
            return
        }
    }

    // MARK: - Validity at signedDate

    @Test func expiredLeafRefused() {
        let chain = AppStoreTestChain.make(root: chain.root, leafValidity: AppStoreTestPKI.date("2024-01-01T00:00:00Z")...AppStoreTestPKI.date("2025-05-31T23:59:59Z"))
        #expect(throws: SignedDataError.certificateExpired(.leaf)) { try verifier.verifyTransaction(signedTransaction(chain)) }
    }

    @Test func notYetValidLeafRefused() {
        let chain = AppStoreTestChain.make(root: chain.root, leafValidity: AppStoreTestPKI.date("2025-06-01T00:00:01Z")...AppStoreTestPKI.date("2030-01-01T00:00:00Z"))
        #expect(throws: SignedDataError.certificateNotYetValid(.leaf)) { try verifier.verifyTransaction(signedTransaction(chain)) }
    }

    @Test func validityRunsFromNotBeforeIncludedToNotAfterExcluded() throws {
        let start = AppStoreTestSetup.signedAt
        let chain = AppStoreTestChain.make(root: chain.root, leafValidity: start...start.addingTimeInterval(1))
        _ = try verifier.verifyTransaction(signedTransaction(chain, signedAt: start))
        _ = try verifier.verifyTransaction(signedTransaction(chain, signedAt: start.addingTimeInterval(0.999)))
        // The second payload comes from the cache, the third one from OpenSSL: same answer.
        #expect(throws: SignedDataError.certificateExpired(.leaf)) {
            try verifier.verifyTransaction(signedTransaction(chain, signedAt: start.addingTimeInterval(1)))
        }
        let uncached = try AppStoreTestSetup.verifier(roots: [self.chain.root])
        #expect(throws: SignedDataError.certificateExpired(.leaf)) {
            try uncached.verifyTransaction(signedTransaction(chain, signedAt: start.addingTimeInterval(1)))
        }
        #expect(throws: SignedDataError.certificateNotYetValid(.leaf)) {
            try uncached.verifyTransaction(signedTransaction(chain, signedAt: start.addingTimeInterval(-0.001)))
        }
    }

    @Test func expiredIntermediateRefused() {
        let chain = AppStoreTestChain.make(root: chain.root, intermediateValidity: AppStoreTestPKI.date("2020-01-01T00:00:00Z")...AppStoreTestPKI.date("2025-01-01T00:00:00Z"))
        #expect(throws: SignedDataError.certificateExpired(.intermediate)) { try verifier.verifyTransaction(signedTransaction(chain)) }
    }

    @Test func expiredRootRefused() throws {
        let root = AppStoreTestPKI.root(validity: AppStoreTestPKI.date("2020-01-01T00:00:00Z")...AppStoreTestPKI.date("2025-01-01T00:00:00Z"))
        let verifier = try AppStoreTestSetup.verifier(roots: [root])
        #expect(throws: SignedDataError.certificateExpired(.root)) {
            try verifier.verifyTransaction(signedTransaction(AppStoreTestChain.make(root: root)))
        }
    }

    @Test func payloadWithoutSignedDateIsCheckedAtTheClock() throws {
        let chain = AppStoreTestChain.make(root: chain.root, leafValidity: AppStoreTestPKI.date("2024-01-01T00:00:00Z")...AppStoreTestPKI.date("2025-01-01T00:00:00Z"))
        let jws = signedTransaction(chain, signedAt: nil)
        let during = try AppStoreTestSetup.verifier(roots: [self.chain.root], now: { AppStoreTestPKI.date("2024-06-01T00:00:00Z") })
        _ = try during.verifyTransaction(jws)
        let after = try AppStoreTestSetup.verifier(roots: [self.chain.root], now: { AppStoreTestPKI.date("2025-06-01T00:00:00Z") })
        #expect(throws: SignedDataError.certificateExpired(.leaf)) { try after.verifyTransaction(jws) }
    }

    @Test(arguments: zip([Int64.max, Int64.min, -1],
                         [SignedDataError.certificateExpired(.root), .certificateNotYetValid(.root), .certificateNotYetValid(.root)]))
    func extremeSignedDatesRefusedWithoutCrashing(signedDate: Int64, expected: SignedDataError) {
        let jws = AppStoreTestJWS.sign(AppStoreTestSetup.transaction(extra: ["signedDate": signedDate]), chain: chain)
        #expect(throws: expected) { try verifier.verifyTransaction(jws) }
    }
}
