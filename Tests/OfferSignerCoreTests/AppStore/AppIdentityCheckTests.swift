import Foundation
import Testing
@testable import OfferSignerCore

/// The checks after the signature: configured app, appAppleId in Production, accepted
/// environment; and the verifier's configuration.
@Suite struct AppIdentityCheckTests {
    let chain = AppStoreTestChain.make()

    func sign(_ payload: [String: Any]) -> String { AppStoreTestJWS.sign(payload, chain: chain) }

    func notification(bundleId: String = AppStoreTestSetup.bundleId, appAppleId: Int64? = AppStoreTestSetup.appAppleId,
                      environment: String = "Production") -> String {
        sign(AppStoreTestSetup.notification(data: AppStoreTestSetup.notificationData(
            bundleId: bundleId, appAppleId: appAppleId, environment: environment)))
    }

    // MARK: - Transactions

    @Test func transactionOfAnUnconfiguredAppRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.unknownBundleId("com.example.other")) {
            try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction(bundleId: "com.example.other")))
        }
    }

    @Test func transactionWithoutBundleIdRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.missingBundleId) {
            try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction(bundleId: nil)))
        }
    }

    @Test(arguments: [("Production", Set(["Sandbox"])), ("Sandbox", Set(["Production"])), ("Xcode", Set(["Production", "Sandbox"]))])
    func transactionFromAnEnvironmentNotAcceptedRefused(environment: String, accepted: Set<String>) throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], environments: accepted)
        #expect(throws: SignedDataError.environmentNotAccepted(environment)) {
            try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction(environment: environment)))
        }
    }

    @Test func transactionWithoutEnvironmentRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.environmentNotAccepted(nil)) {
            try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction(environment: nil)))
        }
    }

    @Test func transactionsOfEachConfiguredAppVerify() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], apps: [
            .init(bundleId: "com.example.one", appAppleId: 1), .init(bundleId: "com.example.two", appAppleId: nil),
        ])
        #expect(try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction(bundleId: "com.example.one"))).bundleId == "com.example.one")
        #expect(try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction(bundleId: "com.example.two"))).bundleId == "com.example.two")
    }

    // MARK: - Renewal info

    @Test func renewalInfoFromAnEnvironmentNotAcceptedRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], environments: ["Production"])
        #expect(throws: SignedDataError.environmentNotAccepted("Sandbox")) {
            try verifier.verifyRenewalInfo(sign(AppStoreTestSetup.renewalInfo(environment: "Sandbox")))
        }
        #expect(try verifier.verifyRenewalInfo(sign(AppStoreTestSetup.renewalInfo())).autoRenewStatus == .on)
    }

    // MARK: - Notifications

    @Test func productionNotificationWithAnotherAppAppleIdRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.appAppleIdMismatch(bundleId: AppStoreTestSetup.bundleId, found: 999)) {
            try verifier.verifyNotification(notification(appAppleId: 999))
        }
        #expect(throws: SignedDataError.appAppleIdMismatch(bundleId: AppStoreTestSetup.bundleId, found: nil)) {
            try verifier.verifyNotification(notification(appAppleId: nil))
        }
    }

    @Test func productionNotificationForAnAppConfiguredWithoutAppAppleIdRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], apps: [.init(bundleId: AppStoreTestSetup.bundleId, appAppleId: nil)])
        #expect(throws: SignedDataError.appAppleIdNotConfigured(bundleId: AppStoreTestSetup.bundleId)) {
            try verifier.verifyNotification(notification())
        }
        // Sandbox data carries no appAppleId check, as in Apple's library.
        _ = try verifier.verifyNotification(notification(appAppleId: nil, environment: "Sandbox"))
    }

    @Test func sandboxNotificationIgnoresAppAppleId() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        _ = try verifier.verifyNotification(notification(appAppleId: 999, environment: "Sandbox"))
    }

    @Test func notificationOfAnUnconfiguredAppRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.unknownBundleId("com.example.other")) {
            try verifier.verifyNotification(notification(bundleId: "com.example.other"))
        }
    }

    @Test func notificationFromAnEnvironmentNotAcceptedRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], environments: ["Sandbox"])
        #expect(throws: SignedDataError.environmentNotAccepted("Production")) {
            try verifier.verifyNotification(notification())
        }
    }

    // MARK: - Configuration

    @Test func configurationMistakesRefused() throws {
        let root = chain.root.certificate
        let app = SignedDataVerifier.App(bundleId: "com.example", appAppleId: 1)
        #expect(throws: SignedDataConfigurationError.noRootCertificates) {
            try SignedDataVerifier(rootCertificates: [], apps: [app], acceptedEnvironments: ["Production"])
        }
        #expect(throws: SignedDataConfigurationError.duplicateBundleId("com.example")) {
            try SignedDataVerifier(rootCertificates: [root], apps: [app, app], acceptedEnvironments: ["Production"])
        }
        #expect(throws: SignedDataConfigurationError.noAcceptedEnvironments) {
            try SignedDataVerifier(rootCertificates: [root], apps: [app], acceptedEnvironments: [])
        }
        #expect(throws: SignedDataConfigurationError.unknownEnvironment("production")) {
            try SignedDataVerifier(rootCertificates: [root], apps: [app], acceptedEnvironments: ["production"])
        }
        let error = #expect(throws: SignedDataConfigurationError.self) {
            try SignedDataVerifier(rootCertificatesDER: [chain.root.der, [0x30, 0x03, 0x02, 0x01]], apps: [app],
                                   acceptedEnvironments: ["Production"])
        }
        guard case .invalidRootCertificate(index: 1, _) = error else {
            Issue.record("expected the second root to be refused, got \(String(describing: error))")
            return
        }
    }

    @Test func rootsMayBeGivenAsDERBytes() throws {
        let verifier = try SignedDataVerifier(rootCertificatesDER: [AppStoreTestPKI.root().der, chain.root.der],
                                              apps: [.init(bundleId: AppStoreTestSetup.bundleId, appAppleId: nil)],
                                              acceptedEnvironments: ["Production"], now: { AppStoreTestSetup.signedAt })
        _ = try verifier.verifyTransaction(sign(AppStoreTestSetup.transaction()))
    }

    @Test func certificatesLoadFromDERAndPEM() throws {
        let pem = "-----BEGIN CERTIFICATE-----\n" + chain.root.base64 + "\n-----END CERTIFICATE-----\n"
        #expect(try X509Certificate(pem: pem).derBytes == chain.root.der)
        #expect(try X509Certificate(derOrPEM: Array(pem.utf8)).derBytes == chain.root.der)
        #expect(try X509Certificate(derOrPEM: chain.root.der).derBytes == chain.root.der)
        #expect(throws: CertificateError.self) { try X509Certificate(der: []) }
        #expect(throws: CertificateError.self) { try X509Certificate(pem: "not pem") }
    }

    @Test func errorDescriptionsAreSpecific() {
        #expect(SignedDataError.untrustedChain.description == "x5c chain does not lead to a trusted root")
        #expect(SignedDataError.missingAppleExtension(.leaf, oid: AppStoreChainVerifier.leafOID).description
                == "leaf certificate lacks OID 1.2.840.113635.100.6.11.1")
        #expect(SignedDataError.nested(field: "signedTransactionInfo", .certificateExpired(.intermediate)).description
                == "signedTransactionInfo: x5c intermediate certificate had expired at the payload's signedDate")
        #expect(SignedDataError.wrongCertificateCount(2).description == "x5c holds 2 certificates, expected 3 (leaf, intermediate, root)")
    }
}
