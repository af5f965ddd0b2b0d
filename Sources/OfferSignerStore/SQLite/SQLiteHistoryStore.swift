import Foundation
import OfferSignerCore

/// Verified App Store history in SQLite.
public final class SQLiteHistoryStore: SubscriptionHistoryStore, Sendable {
    private let database: SQLiteDatabase
    private let committer: GroupCommitter<HistoryItem, Bool>

    public init(database: SQLiteDatabase) {
        self.database = database
        committer = GroupCommitter(database: database, name: "history-writer") { batch, db in
            try batch.map { item in .success(try Self.write(item, db)) }
        }
    }

    deinit {
        committer.close()
    }

    /// Stops the writer once the items already waiting are written.
    public func close() {
        committer.close()
    }

    public func record(_ item: HistoryItem) throws -> Bool {
        try committer.submit(item).get()
    }

    public func record(batch items: [HistoryItem]) throws -> [Bool] {
        try database.write { db in try items.map { try Self.write($0, db) } }
    }

    private static func write(_ item: HistoryItem, _ db: SQLiteConnection) throws -> Bool {
        switch item {
        case .notification(let notification, let transaction, let renewal):
            try db.run("""
                INSERT INTO notifications (notification_uuid, notification_type, subtype, bundle_id, environment,
                    signed_date_ms, received_at_ms, signed_payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(notification_uuid) DO NOTHING
                """, [.text(notification.notificationUUID), .text(notification.notificationType), .optional(notification.subtype),
                      .optional(notification.bundleId), .optional(notification.environment), .integer(notification.signedDate),
                      .integer(notification.receivedAt), .text(notification.signedPayload)])
            guard db.changes == 1 else { return false }
            if let transaction { _ = try upsert(transaction, db) }
            if let renewal { _ = try upsert(renewal, db) }
            return true
        case .transaction(let transaction):
            return try upsert(transaction, db)
        case .renewal(let renewal):
            return try upsert(renewal, db)
        }
    }

    /// Inserts the transaction, or replaces the stored copy of it (same environment and
    /// `transactionId`) when this one was signed later.
    private static func upsert(_ stored: StoredTransaction, _ db: SQLiteConnection) throws -> Bool {
        let t = stored.transaction
        try db.run("""
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, bundle_id, product_id, group_id,
                user_id, purchase_ms, expires_ms, revocation_ms, revocation_reason, revocation_type, revocation_percentage,
                is_upgraded, ownership_type, transaction_reason, offer_type, offer_id, offer_discount_type, price, storefront,
                signed_date_ms, signed_transaction)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(environment, transaction_id) DO UPDATE SET original_transaction_id = excluded.original_transaction_id,
                bundle_id = excluded.bundle_id, product_id = excluded.product_id, group_id = excluded.group_id,
                user_id = excluded.user_id, purchase_ms = excluded.purchase_ms, expires_ms = excluded.expires_ms,
                revocation_ms = excluded.revocation_ms, revocation_reason = excluded.revocation_reason,
                revocation_type = excluded.revocation_type, revocation_percentage = excluded.revocation_percentage,
                is_upgraded = excluded.is_upgraded, ownership_type = excluded.ownership_type,
                transaction_reason = excluded.transaction_reason, offer_type = excluded.offer_type, offer_id = excluded.offer_id,
                offer_discount_type = excluded.offer_discount_type, price = excluded.price, storefront = excluded.storefront,
                signed_date_ms = excluded.signed_date_ms, signed_transaction = excluded.signed_transaction
            WHERE excluded.signed_date_ms > transactions.signed_date_ms
            """, [.text(t.environment.rawValue), .text(t.transactionId), .text(t.originalTransactionId), .text(t.bundleId),
                  .text(t.productId), .text(t.subscriptionGroupIdentifier), .optional(t.appAccountToken?.lowercased()),
                  .integer(t.purchaseDate.milliseconds), .optional(t.expiresDate?.milliseconds),
                  .optional(t.revocationDate?.milliseconds), .optional(t.revocationReason.map(Int64.init)),
                  .optional(t.revocationType), .optional(t.revocationPercentage.map(Int64.init)),
                  .optional(t.isUpgraded.map { $0 ? 1 : 0 }), .optional(t.inAppOwnershipType), .optional(t.transactionReason),
                  .optional(t.offerType.map(Int64.init)), .optional(t.offerIdentifier), .optional(t.offerDiscountType),
                  .optional(t.price.map(Int64.init)), .optional(t.storefront), .integer(t.signedDate.milliseconds),
                  .text(stored.signedTransaction)])
        return db.changes == 1
    }

    /// Inserts the renewal info, or replaces the stored one of its subscription (same
    /// environment and `originalTransactionId`) when this one was signed later.
    private static func upsert(_ stored: StoredRenewal, _ db: SQLiteConnection) throws -> Bool {
        let r = stored.renewal
        try db.run("""
            INSERT INTO renewals (environment, original_transaction_id, product_id, auto_renew_status, in_billing_retry,
                grace_expires_ms, expiration_intent, win_back_offer_ids, signed_date_ms, signed_renewal_info)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(environment, original_transaction_id) DO UPDATE SET product_id = excluded.product_id,
                auto_renew_status = excluded.auto_renew_status, in_billing_retry = excluded.in_billing_retry,
                grace_expires_ms = excluded.grace_expires_ms, expiration_intent = excluded.expiration_intent,
                win_back_offer_ids = excluded.win_back_offer_ids, signed_date_ms = excluded.signed_date_ms,
                signed_renewal_info = excluded.signed_renewal_info
            WHERE excluded.signed_date_ms > renewals.signed_date_ms
            """, [.text(r.environment.rawValue), .text(r.originalTransactionId), .optional(r.productId),
                  .optional(r.autoRenewStatus.map(Int64.init)), .optional(r.isInBillingRetryPeriod.map { $0 ? 1 : 0 }),
                  .optional(r.gracePeriodExpiresDate?.milliseconds), .optional(r.expirationIntent.map(Int64.init)),
                  .text(WinBackOfferIds.encode(r.eligibleWinBackOfferIds)), .integer(r.signedDate.milliseconds),
                  .text(stored.signedRenewalInfo)])
        return db.changes == 1
    }

    /// Driven by the user's index for the user's subscriptions, then each subscription's
    /// transactions and renewal info by the (environment, `original_transaction_id`) indexes:
    /// a transaction of the subscription without the user's token still counts. Fixed SQL
    /// (prepared once per connection), and no `IN (SELECT …)`, whose temporary table SQLite
    /// would build and drop on every lookup. Rows of an environment this build does not know
    /// are left out.
    public func history(userId: String, bundleId: String) throws -> UserHistory {
        try database.read { db in
            // One row per transaction: sorted, then each subscription once.
            var subscriptions = try db.query(Self.userSubscriptionsSQL, [.text(bundleId), .text(userId)]) { row in
                AppStoreEnvironment(rawValue: row.text(0)).map { Subscription(environment: $0, original: row.text(1)) }
            }.compactMap { $0 }
            subscriptions.sort()
            var transactions: [SubscriptionTransaction] = []
            var renewals: [SubscriptionRenewalState] = []
            var previous: Subscription?
            for subscription in subscriptions where subscription != previous {
                previous = subscription
                let environment = SQLiteValue.text(subscription.environment.rawValue), original = SQLiteValue.text(subscription.original)
                for row in try db.query(Self.subscriptionTransactionsSQL, [environment, original, .text(bundleId)], row: { HistoryRows.transaction($0) }) {
                    if let row { transactions.append(row) }
                }
                for row in try db.query(Self.subscriptionRenewalSQL, [environment, original], row: { HistoryRows.renewal($0) }) {
                    if let row { renewals.append(row) }
                }
            }
            return UserHistory(transactions: transactions, renewals: renewals)
        }
    }

    private static let userSubscriptionsSQL = "SELECT environment, original_transaction_id FROM transactions WHERE bundle_id = ? AND user_id = ?"
    private static let subscriptionTransactionsSQL = """
        SELECT \(HistoryRows.transactionColumns) FROM transactions WHERE environment = ? AND original_transaction_id = ? AND bundle_id = ?
        """
    private static let subscriptionRenewalSQL = "SELECT \(HistoryRows.renewalColumns) FROM renewals WHERE environment = ? AND original_transaction_id = ?"

    /// Driven by the (environment, `original_transaction_id`) index of both tables. Renewal
    /// infos name no app, so they count only when the app has transactions of the subscription.
    public func history(originalTransactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try database.read { db in
            let key: [SQLiteValue] = [.text(environment.rawValue), .text(originalTransactionId)]
            let transactions = try db.query(Self.subscriptionTransactionsSQL, key + [.text(bundleId)], row: { HistoryRows.transaction($0) }).compactMap { $0 }
            guard !transactions.isEmpty else { return UserHistory() }
            let renewals = try db.query(Self.subscriptionRenewalSQL, key, row: { HistoryRows.renewal($0) }).compactMap { $0 }
            return UserHistory(transactions: transactions, renewals: renewals)
        }
    }

    public func subscriptionGroup(productId: String, bundleId: String, environment: AppStoreEnvironment) throws -> String? {
        try database.read { db in
            try db.query("SELECT group_id FROM transactions WHERE bundle_id = ? AND product_id = ? AND environment = ? LIMIT 1",
                         [.text(bundleId), .text(productId), .text(environment.rawValue)]) { $0.text(0) }.first
        }
    }

    public func knownUsers(bundleId: String, environment: AppStoreEnvironment, afterUserId: String, limit: Int) throws -> [String] {
        try database.read(.audit) { db in
            try db.query("""
                SELECT DISTINCT user_id FROM transactions
                WHERE bundle_id = ? AND user_id IS NOT NULL AND user_id > ? AND environment = ?
                ORDER BY user_id LIMIT ?
                """, [.text(bundleId), .text(afterUserId), .text(environment.rawValue), .integer(Int64(limit))]) { $0.text(0) }
        }
    }
}

/// One subscription: its environment and original transaction.
private struct Subscription: Hashable, Comparable {
    let environment: AppStoreEnvironment
    let original: String

    static func < (a: Subscription, b: Subscription) -> Bool {
        (a.environment.rawValue, a.original) < (b.environment.rawValue, b.original)
    }
}
