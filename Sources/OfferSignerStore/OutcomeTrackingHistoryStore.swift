import Foundation
import OfferSignerCore

/// The history store with the offers' outcomes kept up to date: after a write that changed a
/// subscription's transactions — a notification, a proof, an import, a backfill, a recovery —
/// that subscription's redemptions are derived and matched again (``OutcomeStore/refresh(_:)``).
/// A redemption may arrive long after its signature: it is matched whenever its notification
/// comes. A refresh that fails leaves the history stored (reported to the observer; `outcomes
/// rebuild` repairs it).
public final class OutcomeTrackingHistoryStore: SubscriptionHistoryStore, Sendable {
    /// The store written to and read from.
    public let inner: any SubscriptionHistoryStore
    public let outcomes: any OutcomeStore
    private let observer = PlainMutex<(@Sendable (OutcomeEvent) -> Void)?>(nil)

    public init(_ inner: any SubscriptionHistoryStore, outcomes: any OutcomeStore) {
        self.inner = inner
        self.outcomes = outcomes
    }

    /// Calls `report` for what refreshes find (unmatched redemptions of managed offers) and for
    /// refreshes that fail; replaces any earlier observer.
    public func observe(_ report: @escaping @Sendable (OutcomeEvent) -> Void) {
        observer.withLock { $0 = report }
    }

    public func record(_ item: HistoryItem) throws -> Bool {
        let changed = try inner.record(item)
        if changed, let subscription = Self.subscription(of: item) { refresh([subscription]) }
        return changed
    }

    public func record(batch items: [HistoryItem]) throws -> [Bool] {
        let changed = try inner.record(batch: items)
        var seen: Set<SubscriptionRef> = []
        var subscriptions: [SubscriptionRef] = []
        for (item, didChange) in zip(items, changed) where didChange {
            if let subscription = Self.subscription(of: item), seen.insert(subscription).inserted { subscriptions.append(subscription) }
        }
        refresh(subscriptions)
        return changed
    }

    public func history(userId: String, bundleId: String) throws -> UserHistory {
        try inner.history(userId: userId, bundleId: bundleId)
    }

    public func history(originalTransactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try inner.history(originalTransactionId: originalTransactionId, environment: environment, bundleId: bundleId)
    }

    public func history(transactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try inner.history(transactionId: transactionId, environment: environment, bundleId: bundleId)
    }

    public func subscriptionGroup(productId: String, bundleId: String, environment: AppStoreEnvironment) throws -> String? {
        try inner.subscriptionGroup(productId: productId, bundleId: bundleId, environment: environment)
    }

    public func knownUsers(bundleId: String, environment: AppStoreEnvironment, afterUserId: String, limit: Int) throws -> [String] {
        try inner.knownUsers(bundleId: bundleId, environment: environment, afterUserId: afterUserId, limit: limit)
    }

    /// The subscription whose transactions `item` changes, if it carries a transaction.
    static func subscription(of item: HistoryItem) -> SubscriptionRef? {
        let stored: StoredTransaction?
        switch item {
        case .notification(_, let transaction, _): stored = transaction
        case .transaction(let transaction): stored = transaction
        case .renewal: stored = nil
        }
        return stored.map {
            SubscriptionRef(bundleId: $0.transaction.bundleId, environment: $0.transaction.environment,
                            originalTransactionId: $0.transaction.originalTransactionId)
        }
    }

    private func refresh(_ subscriptions: [SubscriptionRef]) {
        let report = observer.withLock { $0 }
        for subscription in subscriptions {
            do {
                let unmatched = try outcomes.refresh(subscription)
                if !unmatched.isEmpty { report?(.unmatched(unmatched)) }
            } catch {
                report?(.refreshFailed(subscription, String(describing: error)))
            }
        }
    }
}

/// What keeping the outcomes up to date finds.
public enum OutcomeEvent: Sendable {
    /// Newly found redemptions of managed offers that no signature of the log explains.
    case unmatched([RedemptionRecord])
    /// A subscription's redemptions could not be derived again.
    case refreshFailed(SubscriptionRef, String)
}
