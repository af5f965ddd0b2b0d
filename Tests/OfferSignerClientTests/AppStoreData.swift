import AppStoreServerAPIMock
import Foundation

/// App Store data for the tests, signed by the test chain as the App Store signs it, dated
/// relative to now (the service decides on its own clock).
enum AppStoreData {
    static func ms(_ date: Date) -> Int64 { TestSignedData.ms(date) }

    /// A signed auto-renewable subscription transaction of the test product, `days` long from
    /// `purchased` days ago; `extra` adds fields (`offerType`, `appTransactionId`, …).
    static func transaction(id: String, original: String? = nil, user: String?, purchasedDaysAgo: Double, days: Double = 30,
                            environment: String = "Production", extra: [String: Any] = [:]) -> String {
        let now = Date()
        let purchased = now.addingTimeInterval(-purchasedDaysAgo * 86_400)
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": original ?? id, "bundleId": TestSignedData.bundleId,
            "productId": TestSignedData.product, "subscriptionGroupIdentifier": TestSignedData.group,
            "purchaseDate": ms(purchased), "originalPurchaseDate": ms(purchased),
            "expiresDate": ms(purchased.addingTimeInterval(days * 86_400)), "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": ms(now.addingTimeInterval(-60)),
            "environment": environment, "storefront": "USA", "storefrontId": "143441", "price": 9990, "currency": "USD",
            "transactionReason": "PURCHASE",
        ]
        if let user { payload["appAccountToken"] = user }
        payload.merge(extra) { _, new in new }
        return TestSignedData.sign(payload)
    }

    /// A signed notification of type `type` carrying `transaction`.
    static func notification(_ type: String = "DID_RENEW", transaction: String) -> String {
        TestSignedData.sign([
            "notificationType": type, "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0",
            "signedDate": ms(Date().addingTimeInterval(-60)),
            "data": ["appAppleId": TestSignedData.appAppleId, "bundleId": TestSignedData.bundleId, "bundleVersion": "1.0",
                     "environment": "Production", "status": 1, "signedTransactionInfo": transaction] as [String: Any],
        ])
    }

    /// A signed app transaction (`AppTransaction.shared.jwsRepresentation`), made a minute ago.
    static func appTransaction(appTransactionId: String) -> String {
        let now = Date()
        return TestSignedData.sign([
            "receiptType": "Production", "appAppleId": TestSignedData.appAppleId, "bundleId": TestSignedData.bundleId,
            "applicationVersion": "7.1", "receiptCreationDate": ms(now.addingTimeInterval(-60)),
            "originalPurchaseDate": ms(now.addingTimeInterval(-400 * 86_400)), "originalApplicationVersion": "1.0",
            "deviceVerification": "dGVzdA==", "deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a",
            "originalPlatform": "iOS", "appTransactionId": appTransactionId,
        ])
    }

    /// `RESCIND_CONSENT` for the app download `appTransactionId`.
    static func rescindConsent(appTransactionId: String) -> String {
        TestSignedData.sign([
            "notificationType": "RESCIND_CONSENT", "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0",
            "signedDate": ms(Date().addingTimeInterval(-60)),
            "appData": ["appAppleId": TestSignedData.appAppleId, "bundleId": TestSignedData.bundleId, "environment": "Production",
                        "signedAppTransactionInfo": appTransaction(appTransactionId: appTransactionId)] as [String: Any],
        ])
    }

    /// The claims of a compact JWS (not verified).
    static func claims(_ jws: String) -> [String: Any] { TestSignedData.unverifiedPayload(jws) }
}
