import OfferSignerCore

/// A subscription's status whose signed transaction and renewal information were verified.
public struct VerifiedSubscriptionStatus: Hashable, Sendable {
    /// The subscription group.
    public var subscriptionGroupIdentifier: String
    /// The status as Apple sent it; see ``status``.
    public var rawStatus: Int32
    /// The subscription's original transaction ID.
    public var originalTransactionId: String
    /// The decoded `signedTransactionInfo`.
    public var transaction: JWSTransactionDecodedPayload
    /// The decoded `signedRenewalInfo`.
    public var renewalInfo: JWSRenewalInfoDecodedPayload

    /// The status, or nil for a value this code does not know yet.
    public var status: SubscriptionStatus? { SubscriptionStatus(rawValue: rawStatus) }
}

// Everything the App Store Server API returns signed is verified exactly as a notification is
// (chain to a configured root, Apple's OIDs, signature, app, environment) by OfferSignerCore's
// `SignedDataVerifier`. Each signed item must also come from the app and environment its
// response names. A refusal names the item, e.g. `signedTransactions[3]`.

extension HistoryResponse {
    /// The page's transactions, each verified and decoded.
    public func verifiedTransactions(using verifier: SignedDataVerifier) throws(AppStoreServerAPIVerificationError) -> [JWSTransactionDecodedPayload] {
        try AppStoreServerAPIVerification.transactions(signedTransactions, bundleId: bundleId, environment: rawEnvironment,
                                                       using: verifier)
    }
}

extension TransactionHistory {
    /// The whole history's transactions, each verified and decoded.
    public func verifiedTransactions(using verifier: SignedDataVerifier) throws(AppStoreServerAPIVerificationError) -> [JWSTransactionDecodedPayload] {
        try AppStoreServerAPIVerification.transactions(signedTransactions, bundleId: bundleId, environment: rawEnvironment,
                                                       using: verifier)
    }
}

extension StatusResponse {
    /// Every subscription's status with its transaction and renewal information verified and decoded.
    public func verifiedStatuses(using verifier: SignedDataVerifier) throws(AppStoreServerAPIVerificationError) -> [VerifiedSubscriptionStatus] {
        var verified: [VerifiedSubscriptionStatus] = []
        for (groupIndex, group) in data.enumerated() {
            for (index, item) in group.lastTransactions.enumerated() {
                let place = "data[\(groupIndex)].lastTransactions[\(index)]"
                let transaction = try AppStoreServerAPIVerification.verify("\(place).signedTransactionInfo") { () throws(SignedDataError) in
                    try verifier.verifyTransaction(item.signedTransactionInfo)
                }
                try AppStoreServerAPIVerification.checkSource("\(place).signedTransactionInfo", bundleId: transaction.bundleId,
                                                              environment: transaction.rawEnvironment,
                                                              expectedBundleId: bundleId, expectedEnvironment: rawEnvironment)
                let renewalInfo = try AppStoreServerAPIVerification.verify("\(place).signedRenewalInfo") { () throws(SignedDataError) in
                    try verifier.verifyRenewalInfo(item.signedRenewalInfo)
                }
                try AppStoreServerAPIVerification.checkSource("\(place).signedRenewalInfo", bundleId: nil,
                                                              environment: renewalInfo.rawEnvironment,
                                                              expectedBundleId: bundleId, expectedEnvironment: rawEnvironment)
                verified.append(VerifiedSubscriptionStatus(
                    subscriptionGroupIdentifier: group.subscriptionGroupIdentifier, rawStatus: item.rawStatus,
                    originalTransactionId: item.originalTransactionId, transaction: transaction, renewalInfo: renewalInfo))
            }
        }
        return verified
    }
}

extension NotificationHistoryResponseItem {
    /// The notification, verified and decoded as the webhook would have (with its nested
    /// transaction and renewal information).
    public func verifiedNotification(using verifier: SignedDataVerifier) throws(SignedDataError) -> VerifiedNotification {
        try verifier.verifyNotification(signedPayload)
    }
}

extension NotificationHistoryResponse {
    /// The page's notifications, each verified and decoded; the first refusal stops it.
    public func verifiedNotifications(using verifier: SignedDataVerifier) throws(AppStoreServerAPIVerificationError) -> [VerifiedNotification] {
        var verified: [VerifiedNotification] = []
        for (index, item) in notificationHistory.enumerated() {
            verified.append(try AppStoreServerAPIVerification.verify("notificationHistory[\(index)].signedPayload") { () throws(SignedDataError) in
                try item.verifiedNotification(using: verifier)
            })
        }
        return verified
    }
}

/// The checks the verification conveniences share.
enum AppStoreServerAPIVerification {
    static func transactions(_ signed: [String], bundleId: String?, environment: String?,
                             using verifier: SignedDataVerifier) throws(AppStoreServerAPIVerificationError) -> [JWSTransactionDecodedPayload] {
        var verified: [JWSTransactionDecodedPayload] = []
        verified.reserveCapacity(signed.count)
        for (index, jws) in signed.enumerated() {
            let item = "signedTransactions[\(index)]"
            let decoded = try verify(item) { () throws(SignedDataError) in try verifier.verifyTransaction(jws) }
            try checkSource(item, bundleId: decoded.bundleId, environment: decoded.rawEnvironment,
                            expectedBundleId: bundleId, expectedEnvironment: environment)
            verified.append(decoded)
        }
        return verified
    }

    /// Signed data must name the app and environment of the response that carried it.
    static func checkSource(_ item: String, bundleId: String?, environment: String?, expectedBundleId: String?,
                            expectedEnvironment: String?) throws(AppStoreServerAPIVerificationError) {
        if let expectedBundleId, let bundleId, bundleId != expectedBundleId {
            throw AppStoreServerAPIVerificationError.sourceMismatch(item: item, field: "bundleId", expected: expectedBundleId, found: bundleId)
        }
        if let expectedEnvironment, environment != expectedEnvironment {
            throw AppStoreServerAPIVerificationError.sourceMismatch(item: item, field: "environment", expected: expectedEnvironment,
                                                                    found: environment)
        }
    }

    /// Runs a verifier call for `item`, naming the item in its refusal.
    static func verify<Value>(_ item: String, _ body: () throws(SignedDataError) -> Value) throws(AppStoreServerAPIVerificationError) -> Value {
        do {
            return try body()
        } catch {
            throw AppStoreServerAPIVerificationError.refused(item: item, error)
        }
    }
}
