import Foundation
import Testing
@testable import OfferSignerCore

/// App transactions (`AppTransaction.shared.jwsRepresentation`) verify as Apple's library
/// verifies them: chain valid at `receiptCreationDate`, app and `appAppleId`, `receiptType`.
@Suite struct AppTransactionVerificationTests {
    let chain = AppStoreTestChain.make()

    func sign(_ payload: [String: Any]) -> String { AppStoreTestJWS.sign(payload, chain: chain) }

    static func appTransaction(bundleId: String = AppStoreTestSetup.bundleId, appAppleId: Int64 = AppStoreTestSetup.appAppleId,
                               receiptType: String = "Production", created: Date = AppStoreTestSetup.signedAt,
                               extra: [String: Any] = [:]) -> [String: Any] {
        [
            "receiptType": receiptType, "appAppleId": appAppleId, "bundleId": bundleId, "applicationVersion": "7.1",
            "versionExternalIdentifier": 812_345, "receiptCreationDate": AppStoreTestSetup.milliseconds(created),
            "originalPurchaseDate": 1_600_000_000_000, "originalApplicationVersion": "1.0",
            "deviceVerification": "dGVzdA==", "deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a",
            "appTransactionId": "704289572911", "originalPlatform": "iOS",
        ].merging(extra) { $1 }
    }

    @Test func verifiesAndDecodesEveryField() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        let decoded = try verifier.verifyAppTransaction(sign(Self.appTransaction()))
        #expect(decoded.bundleId == AppStoreTestSetup.bundleId && decoded.appAppleId == AppStoreTestSetup.appAppleId)
        #expect(decoded.receiptType == .production && decoded.appTransactionId == "704289572911")
        #expect(decoded.receiptCreationDate == AppStoreTestSetup.milliseconds(AppStoreTestSetup.signedAt))
        #expect(decoded.originalPlatform == "iOS" && decoded.originalApplicationVersion == "1.0")
        #expect(decoded.deviceVerificationNonce == "48ccfa42-7431-4f22-9908-7e88983e105a")
    }

    @Test func chainMustBeValidAtReceiptCreationDateNotAtAnySignedDate() throws {
        let shortLived = AppStoreTestChain.make(leafValidity: AppStoreTestPKI.date("2025-01-01T00:00:00Z")...AppStoreTestPKI.date("2025-12-31T00:00:00Z"))
        let verifier = try AppStoreTestSetup.verifier(roots: [shortLived.root])
        let created = AppStoreTestPKI.date("2026-03-01T00:00:00Z")
        // A `signedDate` inside the leaf's validity does not help: the App Store signed it at receiptCreationDate.
        let payload = Self.appTransaction(created: created, extra: ["signedDate": AppStoreTestSetup.milliseconds(AppStoreTestSetup.signedAt)])
        #expect(throws: SignedDataError.certificateExpired(.leaf)) {
            try verifier.verifyAppTransaction(AppStoreTestJWS.sign(payload, chain: shortLived))
        }
        _ = try verifier.verifyAppTransaction(AppStoreTestJWS.sign(Self.appTransaction(), chain: shortLived))
    }

    @Test func productionAppTransactionOfAnotherAppAppleIdRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.appAppleIdMismatch(bundleId: AppStoreTestSetup.bundleId, found: 42)) {
            try verifier.verifyAppTransaction(sign(Self.appTransaction(appAppleId: 42)))
        }
        _ = try verifier.verifyAppTransaction(sign(Self.appTransaction(appAppleId: 42, receiptType: "Sandbox")))
    }

    @Test func unconfiguredAppAndUnacceptedEnvironmentRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], environments: ["Production"])
        #expect(throws: SignedDataError.unknownBundleId("com.example.other")) {
            try verifier.verifyAppTransaction(sign(Self.appTransaction(bundleId: "com.example.other")))
        }
        #expect(throws: SignedDataError.environmentNotAccepted("Sandbox")) {
            try verifier.verifyAppTransaction(sign(Self.appTransaction(receiptType: "Sandbox")))
        }
        #expect(throws: SignedDataError.environmentNotAccepted("Xcode")) {
            try verifier.verifyAppTransaction(sign(Self.appTransaction(receiptType: "Xcode")))
        }
    }

    @Test func untrustedChainAndMalformedDateRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [AppStoreTestPKI.root()])
        #expect(throws: SignedDataError.untrustedChain) {
            try verifier.verifyAppTransaction(sign(Self.appTransaction()))
        }
        let trusting = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.malformedPayload("is not a JSON object whose receiptCreationDate is an integer of milliseconds")) {
            try trusting.verifyAppTransaction(sign(Self.appTransaction(extra: ["receiptCreationDate": "yesterday"])))
        }
    }
}
