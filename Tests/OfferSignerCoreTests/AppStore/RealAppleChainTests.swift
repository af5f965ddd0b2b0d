import Foundation
import Testing
@testable import OfferSignerCore

/// Apple's production chain: "Prod ECC Mac App Store and iTunes Store Receipt Signing"
/// (2025-09-19 – 2027-10-13) ← WWDR G6 ← Apple Root CA - G3, with strict checks on.
@Suite struct RealAppleChainTests {
    let leaf: X509Certificate
    let intermediate: X509Certificate
    let verifier: AppStoreChainVerifier

    init() throws {
        leaf = try AppleFixtures.certificate("AppleReceiptSigning-Prod.der")
        intermediate = try AppleFixtures.certificate("AppleWWDRCA-G6.der")
        verifier = try AppStoreChainVerifier(roots: [AppleFixtures.certificate("AppleRootCA-G3.der")])
    }

    @Test func certificatesCarryApplesOIDs() {
        #expect(leaf.hasExtension(oid: AppStoreChainVerifier.leafOID))
        #expect(!leaf.hasExtension(oid: AppStoreChainVerifier.intermediateOID))
        #expect(intermediate.hasExtension(oid: AppStoreChainVerifier.intermediateOID))
        #expect(!intermediate.hasExtension(oid: "not an oid"))
        #expect(leaf.notAfter == AppStoreTestPKI.date("2027-10-13T17:47:23Z"))
        #expect(leaf.subject.contains("Prod ECC Mac App Store and iTunes Store Receipt Signing"))
    }

    @Test func verifiesIn2026() throws {
        let date = AppStoreTestPKI.date("2026-06-01T00:00:00Z")
        let chain = try verifier.verifyWithoutCache(leaf: leaf, intermediate: intermediate,
                                                    atUnixSeconds: UnixTime.seconds(date))
        #expect(chain.leafPublicKey.spkiDER == leaf.subjectPublicKeyInfo)
        #expect(chain.validities.map(\.position) == [.root, .intermediate, .leaf])
        #expect(leaf.isValid(at: date) && intermediate.isValid(at: date))
    }

    @Test func refusedOnceTheLeafHasExpired() {
        #expect(throws: SignedDataError.certificateExpired(.leaf)) {
            try verifier.verify(leaf: leaf, intermediate: intermediate, at: AppStoreTestPKI.date("2027-10-14T00:00:00Z"))
        }
    }

    @Test func refusedBeforeTheLeafWasIssued() {
        #expect(throws: SignedDataError.certificateNotYetValid(.leaf)) {
            try verifier.verify(leaf: leaf, intermediate: intermediate, at: AppStoreTestPKI.date("2025-09-01T00:00:00Z"))
        }
    }

    @Test func refusedUnderAnotherRoot() throws {
        let other = try AppStoreChainVerifier(roots: [AppleFixtures.certificate("testCA.der")])
        #expect(throws: SignedDataError.untrustedChain) {
            try other.verify(leaf: leaf, intermediate: intermediate, at: AppStoreTestPKI.date("2026-06-01T00:00:00Z"))
        }
    }

    @Test func refusedWithLeafAndIntermediateSwapped() {
        let error = #expect(throws: SignedDataError.self) {
            try verifier.verify(leaf: intermediate, intermediate: leaf, at: AppStoreTestPKI.date("2026-06-01T00:00:00Z"))
        }
        #expect(error != nil)
    }
}
