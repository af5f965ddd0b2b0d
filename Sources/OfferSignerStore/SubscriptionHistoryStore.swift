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

    /// The subscription group a product belongs to, as verified transactions of `environment`
    /// reported it.
    func subscriptionGroup(productId: String, bundleId: String, environment: AppStoreEnvironment) throws -> String?

    /// Users with any transaction in `bundleId` and `environment`, in ID order, after `afterUserId`.
    func knownUsers(bundleId: String, environment: AppStoreEnvironment, afterUserId: String, limit: Int) throws -> [String]
}

/// One verified thing to store.
public enum HistoryItem: Sendable, Hashable {
    /// A notification as received, with the transaction and renewal info it carried.
    case notification(StoredNotification, StoredTransaction?, StoredRenewal?)
    case transaction(StoredTransaction)
    case renewal(StoredRenewal)
}

/// A user's verified history in one app, of every environment (each item says which).
public struct UserHistory: Sendable, Hashable {
    public var transactions: [SubscriptionTransaction]
    public var renewals: [SubscriptionRenewalState]

    public init(transactions: [SubscriptionTransaction] = [], renewals: [SubscriptionRenewalState] = []) {
        self.transactions = transactions
        self.renewals = renewals
    }

    /// Facts for the subscription group `group` from `environment`'s history alone, or nil
    /// when the user has nothing in that group there.
    public func facts(group: String, environment: AppStoreEnvironment, now: Date) -> HistoryFacts? {
        HistoryFacts.compute(transactions: transactions, renewalStates: renewals, subscriptionGroupIdentifier: group,
                             environment: environment, now: now)
    }
}

/// A notification as received, with the fields used to find it again.
public struct StoredNotification: Sendable, Hashable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    public var bundleId: String?
    public var environment: String?
    public var signedDate: Int64
    public var receivedAt: Int64
    /// The compact JWS exactly as Apple sent it.
    public var signedPayload: String
    /// For a `RESCIND_CONSENT` notification, the app download (`appTransactionId` of its
    /// verified app transaction) whose consent it withdraws; stored with the notification.
    public var rescindsConsentOf: String?

    public init(notificationUUID: String, notificationType: String, subtype: String?, bundleId: String?,
                environment: String?, signedDate: Int64, receivedAt: Int64, signedPayload: String,
                rescindsConsentOf: String? = nil) {
        self.rescindsConsentOf = rescindsConsentOf
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.bundleId = bundleId
        self.environment = environment
        self.signedDate = signedDate
        self.receivedAt = receivedAt
        self.signedPayload = signedPayload
    }
}

/// A verified transaction and the signed JWS it came from. It is stored under its
/// environment and `transactionId`.
public struct StoredTransaction: Sendable, Hashable {
    public var transaction: SubscriptionTransaction
    public var signedTransaction: String

    public init(transaction: SubscriptionTransaction, signedTransaction: String) {
        self.transaction = transaction
        self.signedTransaction = signedTransaction
    }
}

/// A verified renewal info and the signed JWS it came from. It is stored under its
/// environment and `originalTransactionId`.
public struct StoredRenewal: Sendable, Hashable {
    public var renewal: SubscriptionRenewalState
    public var signedRenewalInfo: String

    public init(renewal: SubscriptionRenewalState, signedRenewalInfo: String) {
        self.renewal = renewal
        self.signedRenewalInfo = signedRenewalInfo
    }
}
