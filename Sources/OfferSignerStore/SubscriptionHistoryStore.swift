import Foundation
import OfferSignerCore

/// Verified App Store history: notifications as received, transactions and renewal infos
/// upserted so that the newest `signedDate` wins whatever order they arrive in.
public protocol SubscriptionHistoryStore: Sendable {
    /// Durably stores one verified item (group-committed with concurrent callers). Returns
    /// false when it changed nothing: a notification already stored (by `notificationUUID`),
    /// or a transaction or renewal info of which a copy at least as new is stored.
    func record(_ item: HistoryItem) throws -> Bool

    /// Stores several verified items in one transaction, with one result each (for imports).
    func record(batch items: [HistoryItem]) throws -> [Bool]

    /// The user's transactions and renewal states in `bundleId`, of every environment, for
    /// `userId` (the lowercased app account token), including transactions of the same
    /// subscriptions (same environment and `originalTransactionId`) that lack the token.
    func history(userId: String, bundleId: String) throws -> UserHistory

    /// One subscription's transactions and renewal states: those in `bundleId` and
    /// `environment` with this `originalTransactionId`, whatever app account token they carry,
    /// or none. For a customer who proved with an Apple-signed transaction that the
    /// subscription is theirs; empty when nothing of it is stored.
    func history(originalTransactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory

    /// The subscription a transaction belongs to: as ``history(originalTransactionId:environment:bundleId:)``
    /// for the `originalTransactionId` of the stored transaction `transactionId`, or for
    /// `transactionId` itself when no such transaction is stored (it may be the original).
    /// For a request that names a transaction without proving it (its consent is looked up).
    func history(transactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory

    /// The subscription group a product belongs to, as verified transactions of `environment`
    /// reported it.
    func subscriptionGroup(productId: String, bundleId: String, environment: AppStoreEnvironment) throws -> String?

    /// Users with any transaction in `bundleId` and `environment`, in ID order, after `afterUserId`.
    func knownUsers(bundleId: String, environment: AppStoreEnvironment, afterUserId: String, limit: Int) throws -> [String]
}
