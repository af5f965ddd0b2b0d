import Foundation
import Testing
@testable import OfferSignerCore

/// Apple's own mock signed data, verified as Apple's library tests verify it: against
/// testCA.der, at each payload's signedDate, with strict X.509 checks off (Apple's test
/// certificates have no authority key identifiers; its Python tests turn them off too).
@Suite struct AppleFixtureVerificationTests {
    /// 2023-04-12, when testNotification was signed; used for payloads without signedDate.
    static let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_681_314_324) }

    func verifier(root: String = "testCA.der", environments: Set<String> = ["Sandbox"],
                  strict: Bool = false) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: [AppleFixtures.certificate(root)],
                               apps: [.init(bundleId: "com.example", appAppleId: 1234)],
                               acceptedEnvironments: environments, strictCertificateChecks: strict,
                               now: Self.clock)
    }

    @Test func testNotificationVerifiesAgainstTestCA() throws {
        let verified = try verifier().verifyNotification(AppleFixtures.signedData("testNotification"))
        let payload = verified.payload
        #expect(payload.notificationType == .test)
        #expect(payload.rawNotificationType == "TEST")
        #expect(payload.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(payload.signedDate == 1_681_314_324_000)
        #expect(payload.data?.bundleId == "com.example")
        #expect(payload.data?.appAppleId == 1234)
        #expect(payload.data?.environment == .sandbox)
        #expect(payload.summary == nil && payload.externalPurchaseToken == nil)
        #expect(verified.transaction == nil && verified.renewalInfo == nil)
    }

    @Test func testNotificationRefusedWhenOnlyProductionIsAccepted() throws {
        #expect(throws: SignedDataError.environmentNotAccepted("Sandbox")) {
            try verifier(environments: ["Production"]).verifyNotification(AppleFixtures.signedData("testNotification"))
        }
    }

    @Test func testNotificationRefusedAgainstAppleRootCAG3() throws {
        #expect(throws: SignedDataError.untrustedChain) {
            try verifier(root: "AppleRootCA-G3.der").verifyNotification(AppleFixtures.signedData("testNotification"))
        }
    }

    @Test func strictChecksRefuseApplesTestCertificates() throws {
        let error = #expect(throws: SignedDataError.self) {
            try verifier(strict: true).verifyNotification(AppleFixtures.signedData("testNotification"))
        }
        guard case .invalidChain = error else {
            Issue.record("expected an invalid-chain error, got \(String(describing: error))")
            return
        }
    }

    @Test func wrongBundleIdRefused() throws {
        #expect(throws: SignedDataError.unknownBundleId("com.example.wrong")) {
            try verifier().verifyNotification(AppleFixtures.signedData("wrongBundleId"))
        }
    }

    @Test func missingX5CHeaderClaimRefused() throws {
        #expect(throws: SignedDataError.missingCertificateChain) {
            try verifier().verifyNotification(AppleFixtures.signedData("missingX5CHeaderClaim"))
        }
    }

    @Test func legacyTransactionRefused() throws {
        #expect(throws: SignedDataError.notCompactJWS) {
            try verifier().verifyTransaction(AppleFixtures.signedData("legacyTransaction"))
        }
    }

    @Test func transactionInfoVerifiesAndDecodes() throws {
        let transaction = try verifier().verifyTransaction(AppleFixtures.signedData("transactionInfo"))
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.environment == .sandbox)
        #expect(transaction.signedDate == 1_672_956_154_000)
    }

    @Test func renewalInfoVerifiesAndDecodes() throws {
        let renewalInfo = try verifier().verifyRenewalInfo(AppleFixtures.signedData("renewalInfo"))
        #expect(renewalInfo.environment == .sandbox)
        #expect(renewalInfo.signedDate == 1_672_956_154_000)
    }

    @Test func transactionInfoRefusedForAnotherApp() throws {
        let verifier = try SignedDataVerifier(rootCertificates: [AppleFixtures.certificate("testCA.der")],
                                              apps: [.init(bundleId: "com.other", appAppleId: nil)],
                                              acceptedEnvironments: ["Sandbox"], strictCertificateChecks: false,
                                              now: Self.clock)
        #expect(throws: SignedDataError.unknownBundleId("com.example")) {
            try verifier.verifyTransaction(AppleFixtures.signedData("transactionInfo"))
        }
    }
}
