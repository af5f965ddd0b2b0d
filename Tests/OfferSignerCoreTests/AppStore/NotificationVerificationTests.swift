import Foundation
import Testing
@testable import OfferSignerCore

/// Notifications and the signed data nested in them.
@Suite struct NotificationVerificationTests {
    let chain = AppStoreTestChain.make()
    let verifier: SignedDataVerifier

    init() throws {
        verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
    }

    func notification(transaction: String? = nil, renewalInfo: String? = nil, environment: String = "Production") -> String {
        AppStoreTestJWS.sign(AppStoreTestSetup.notification(data: AppStoreTestSetup.notificationData(
            environment: environment, signedTransactionInfo: transaction, signedRenewalInfo: renewalInfo)), chain: chain)
    }

    func transaction(_ chain: AppStoreTestChain? = nil, bundleId: String = AppStoreTestSetup.bundleId,
                     environment: String = "Production", signedAt: Date = AppStoreTestSetup.signedAt) -> String {
        AppStoreTestJWS.sign(AppStoreTestSetup.transaction(bundleId: bundleId, environment: environment, signedAt: signedAt),
                             chain: chain ?? self.chain)
    }

    func renewalInfo(_ chain: AppStoreTestChain? = nil, environment: String = "Production") -> String {
        AppStoreTestJWS.sign(AppStoreTestSetup.renewalInfo(environment: environment), chain: chain ?? self.chain)
    }

    @Test func notificationWithTransactionAndRenewalInfoVerifies() throws {
        let verified = try verifier.verifyNotification(notification(transaction: transaction(), renewalInfo: renewalInfo()))
        #expect(verified.payload.notificationType == .didRenew)
        #expect(verified.payload.data?.appAppleId == AppStoreTestSetup.appAppleId)
        #expect(verified.payload.data?.status == .active)
        #expect(verified.transaction?.transactionId == "2000000123456789")
        #expect(verified.transaction?.expiresDate == 1_751_328_000_000)
        #expect(verified.renewalInfo?.autoRenewProductId == "com.example.app.monthly")
        #expect(verified.renewalInfo?.autoRenewStatus == .on)
    }

    @Test func nestedTransactionFromAnUntrustedChainRefused() {
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo", .untrustedChain)) {
            try verifier.verifyNotification(notification(transaction: transaction(AppStoreTestChain.make())))
        }
    }

    @Test func tamperedNestedTransactionRefused() {
        let tampered = AppStoreTestJWS.replacingPayload(
            of: transaction(), with: AppStoreTestJWS.json(AppStoreTestSetup.transaction(extra: ["productId": "com.example.app.lifetime"])))
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo", .invalidSignature)) {
            try verifier.verifyNotification(notification(transaction: tampered))
        }
    }

    @Test func nestedRenewalInfoFromAnUntrustedChainRefused() {
        #expect(throws: SignedDataError.nested(field: "signedRenewalInfo", .untrustedChain)) {
            try verifier.verifyNotification(notification(transaction: transaction(), renewalInfo: renewalInfo(AppStoreTestChain.make())))
        }
    }

    @Test func nestedGarbageRefused() {
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo", .notCompactJWS)) {
            try verifier.verifyNotification(notification(transaction: "not a jws"))
        }
    }

    @Test func nestedTransactionOfAnotherConfiguredAppRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root], apps: [
            .init(bundleId: AppStoreTestSetup.bundleId, appAppleId: AppStoreTestSetup.appAppleId),
            .init(bundleId: "com.example.other", appAppleId: 7),
        ])
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo",
                                               .bundleIdMismatch(expected: AppStoreTestSetup.bundleId, found: "com.example.other"))) {
            try verifier.verifyNotification(notification(transaction: transaction(bundleId: "com.example.other")))
        }
    }

    @Test func nestedDataFromAnotherEnvironmentRefused() {
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo",
                                               .environmentMismatch(expected: "Production", found: "Sandbox"))) {
            try verifier.verifyNotification(notification(transaction: transaction(environment: "Sandbox")))
        }
        #expect(throws: SignedDataError.nested(field: "signedRenewalInfo",
                                               .environmentMismatch(expected: "Production", found: "Sandbox"))) {
            try verifier.verifyNotification(notification(renewalInfo: renewalInfo(environment: "Sandbox")))
        }
    }

    @Test func nestedTransactionIsCheckedAtItsOwnSignedDate() throws {
        let old = AppStoreTestChain.make(root: chain.root, leafValidity: AppStoreTestPKI.date("2023-01-01T00:00:00Z")...AppStoreTestPKI.date("2024-01-01T00:00:00Z"))
        // Signed while its leaf was valid, delivered in a notification signed later: accepted.
        let verified = try verifier.verifyNotification(notification(transaction: transaction(old, signedAt: AppStoreTestPKI.date("2023-06-01T00:00:00Z"))))
        #expect(verified.transaction != nil)
        // Signed after its leaf expired: refused, whatever the notification's own date.
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo", .certificateExpired(.leaf))) {
            try verifier.verifyNotification(notification(transaction: transaction(old, signedAt: AppStoreTestPKI.date("2024-06-01T00:00:00Z"))))
        }
    }

    @Test func summaryNotificationIsCheckedOnItsSummary() throws {
        func summary(bundleId: String, environment: String) -> String {
            AppStoreTestJWS.sign(AppStoreTestSetup.notification(type: "RENEWAL_EXTENSION", extra: [
                "subtype": "SUMMARY",
                "summary": ["bundleId": bundleId, "appAppleId": AppStoreTestSetup.appAppleId, "environment": environment,
                            "productId": "com.example.app.monthly", "requestIdentifier": "req-1",
                            "storefrontCountryCodes": ["USA", "FRA"], "succeededCount": 10, "failedCount": 1],
            ]), chain: chain)
        }
        let verified = try verifier.verifyNotification(summary(bundleId: AppStoreTestSetup.bundleId, environment: "Production"))
        #expect(verified.payload.subtype == .summary)
        #expect(verified.payload.summary?.succeededCount == 10)
        #expect(verified.payload.summary?.storefrontCountryCodes == ["USA", "FRA"])
        #expect(throws: SignedDataError.unknownBundleId("com.example.other")) {
            try verifier.verifyNotification(summary(bundleId: "com.example.other", environment: "Production"))
        }
    }

    @Test func externalPurchaseTokenNotificationTakesItsEnvironmentFromTheTokenIdentifier() throws {
        func token(_ id: String, appAppleId: Int64 = AppStoreTestSetup.appAppleId) -> String {
            AppStoreTestJWS.sign(AppStoreTestSetup.notification(type: "EXTERNAL_PURCHASE_TOKEN", extra: [
                "subtype": "UNREPORTED",
                "externalPurchaseToken": ["externalPurchaseId": id, "tokenCreationDate": 1_748_736_000_000,
                                          "appAppleId": appAppleId, "bundleId": AppStoreTestSetup.bundleId],
            ]), chain: chain)
        }
        let productionOnly = try AppStoreTestSetup.verifier(roots: [chain.root], environments: ["Production"])
        let verified = try productionOnly.verifyNotification(token("b2158121-7af9-49d4-9561-1f588205523e"))
        #expect(verified.payload.externalPurchaseToken?.environment == .production)
        #expect(throws: SignedDataError.environmentNotAccepted("Sandbox")) {
            try productionOnly.verifyNotification(token("SANDBOX_b2158121-7af9-49d4-9561-1f588205523e"))
        }
        #expect(throws: SignedDataError.appAppleIdMismatch(bundleId: AppStoreTestSetup.bundleId, found: 5)) {
            try productionOnly.verifyNotification(token("b2158121-7af9-49d4-9561-1f588205523e", appAppleId: 5))
        }
    }

    @Test func notificationNamingNoAppRefused() {
        #expect(throws: SignedDataError.missingBundleId) {
            try verifier.verifyNotification(AppStoreTestJWS.sign(AppStoreTestSetup.notification(data: nil), chain: chain))
        }
    }

    @Test func notificationWithoutUUIDRefused() {
        var payload = AppStoreTestSetup.notification(data: AppStoreTestSetup.notificationData())
        payload["notificationUUID"] = nil
        #expect(throws: SignedDataError.undecodablePayload(type: "ResponseBodyV2DecodedPayload",
                                                           reason: "'notificationUUID' is required")) {
            try verifier.verifyNotification(AppStoreTestJWS.sign(payload, chain: chain))
        }
    }

    @Test func tamperedNotificationRefused() throws {
        let original = notification(transaction: transaction())
        let forged = AppStoreTestSetup.notification(type: "REFUND", data: AppStoreTestSetup.notificationData(signedTransactionInfo: transaction()))
        #expect(throws: SignedDataError.invalidSignature) {
            try verifier.verifyNotification(AppStoreTestJWS.replacingPayload(of: original, with: AppStoreTestJWS.json(forged)))
        }
    }

    @Test func appleFixtureWithATamperedPayloadRefused() throws {
        let verifier = try SignedDataVerifier(rootCertificates: [AppleFixtures.certificate("testCA.der")],
                                              apps: [.init(bundleId: "com.example", appAppleId: 1234)],
                                              acceptedEnvironments: ["Sandbox"], strictCertificateChecks: false)
        let tampered = AppStoreTestJWS.replacingPayload(
            of: try AppleFixtures.signedData("testNotification"),
            with: #"{"data":{"appAppleId":1234,"environment":"Sandbox","bundleId":"com.example"},"notificationUUID":"9ad56bd2-0bc6-42e0-af24-fd996d87a1e6","signedDate":1681314324000,"notificationType":"REFUND"}"#)
        #expect(throws: SignedDataError.invalidSignature) { try verifier.verifyNotification(tampered) }
    }
}

/// `RESCIND_CONSENT` and the other notifications that carry `appData` instead of `data`.
@Suite struct AppDataNotificationTests {
    let chain = AppStoreTestChain.make()

    func rescind(appTransaction: [String: Any]?, environment: String = "Production") -> String {
        var appData: [String: Any] = ["appAppleId": AppStoreTestSetup.appAppleId, "bundleId": AppStoreTestSetup.bundleId,
                                      "environment": environment]
        appData["signedAppTransactionInfo"] = appTransaction.map { AppStoreTestJWS.sign($0, chain: chain) }
        return AppStoreTestJWS.sign(AppStoreTestSetup.notification(type: "RESCIND_CONSENT", extra: ["appData": appData]), chain: chain)
    }

    @Test func rescindConsentVerifiesWithItsAppTransaction() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        let verified = try verifier.verifyNotification(rescind(appTransaction: AppTransactionVerificationTests.appTransaction()))
        #expect(verified.payload.notificationType == .rescindConsent)
        #expect(verified.payload.appData?.bundleId == AppStoreTestSetup.bundleId)
        #expect(verified.appTransaction?.appTransactionId == "704289572911")
        #expect(NotificationSubject(verified.payload).environment == "Production")
    }

    @Test func appTransactionOfAnotherEnvironmentOrUntrustedChainRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.nested(field: "signedAppTransactionInfo",
                                               .environmentMismatch(expected: "Production", found: "Sandbox"))) {
            try verifier.verifyNotification(rescind(appTransaction: AppTransactionVerificationTests.appTransaction(receiptType: "Sandbox")))
        }
        let other = AppStoreTestChain.make()
        var appData: [String: Any] = ["appAppleId": AppStoreTestSetup.appAppleId, "bundleId": AppStoreTestSetup.bundleId,
                                      "environment": "Production"]
        appData["signedAppTransactionInfo"] = AppStoreTestJWS.sign(AppTransactionVerificationTests.appTransaction(), chain: other)
        let payload = AppStoreTestJWS.sign(AppStoreTestSetup.notification(type: "RESCIND_CONSENT", extra: ["appData": appData]), chain: chain)
        #expect(throws: SignedDataError.nested(field: "signedAppTransactionInfo", .untrustedChain)) {
            try verifier.verifyNotification(payload)
        }
    }

    @Test func appDataOfAnUnconfiguredAppRefused() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        let appData: [String: Any] = ["appAppleId": AppStoreTestSetup.appAppleId, "bundleId": "com.example.unknown", "environment": "Production"]
        let payload = AppStoreTestJWS.sign(AppStoreTestSetup.notification(type: "RESCIND_CONSENT", extra: ["appData": appData]), chain: chain)
        #expect(throws: SignedDataError.self) { try verifier.verifyNotification(payload) }
    }
}
