import Foundation
@testable import OfferSignerCore

/// Shared values for tests that sign their own App Store data.
enum AppStoreTestSetup {
    static let bundleId = "com.example.app"
    static let appAppleId: Int64 = 1_234_567_890
    /// When the tests' payloads are signed, unless a test says otherwise.
    static let signedAt = AppStoreTestPKI.date("2025-06-01T00:00:00Z")

    static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    static func verifier(roots: [AppStoreTestCertificate],
                         apps: [SignedDataVerifier.App] = [.init(bundleId: bundleId, appAppleId: appAppleId)],
                         environments: Set<String> = ["Production", "Sandbox"],
                         now: @escaping @Sendable () -> Date = { signedAt }) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: roots.map(\.certificate), apps: apps,
                               acceptedEnvironments: environments, now: now)
    }

    static func transaction(bundleId: String? = bundleId, environment: String? = "Production",
                            signedAt: Date? = signedAt, extra: [String: Any] = [:]) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": "2000000123456789", "originalTransactionId": "2000000000000001",
            "productId": "com.example.app.monthly", "subscriptionGroupIdentifier": "21000000",
            "purchaseDate": 1_748_736_000_000, "expiresDate": 1_751_328_000_000,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
            "transactionReason": "RENEWAL", "storefront": "USA", "currency": "USD", "price": 9_990,
        ]
        payload["bundleId"] = bundleId
        payload["environment"] = environment
        payload["signedDate"] = signedAt.map(milliseconds)
        return payload.merging(extra) { $1 }
    }

    static func renewalInfo(environment: String? = "Production", signedAt: Date? = signedAt) -> [String: Any] {
        var payload: [String: Any] = [
            "originalTransactionId": "2000000000000001", "productId": "com.example.app.monthly",
            "autoRenewProductId": "com.example.app.monthly", "autoRenewStatus": 1,
            "renewalDate": 1_751_328_000_000, "recentSubscriptionStartDate": 1_740_000_000_000,
        ]
        payload["environment"] = environment
        payload["signedDate"] = signedAt.map(milliseconds)
        return payload
    }

    static func notification(type: String = "DID_RENEW", data: [String: Any]? = nil,
                             signedAt: Date = signedAt, extra: [String: Any] = [:]) -> [String: Any] {
        var payload: [String: Any] = [
            "notificationType": type, "notificationUUID": "0d3b6f5e-64b1-4a2b-9a4f-3c1de0a6a001",
            "version": "2.0", "signedDate": milliseconds(signedAt),
        ]
        payload["data"] = data
        return payload.merging(extra) { $1 }
    }

    static func notificationData(bundleId: String = bundleId, appAppleId: Int64? = appAppleId,
                                 environment: String = "Production", signedTransactionInfo: String? = nil,
                                 signedRenewalInfo: String? = nil) -> [String: Any] {
        var data: [String: Any] = ["bundleId": bundleId, "bundleVersion": "42", "environment": environment, "status": 1]
        data["appAppleId"] = appAppleId
        data["signedTransactionInfo"] = signedTransactionInfo
        data["signedRenewalInfo"] = signedRenewalInfo
        return data
    }
}
