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

    private static func upsert(_ stored: StoredTransaction, _ db: SQLiteConnection) throws -> Bool {
        let t = stored.transaction
        try db.run("""
            INSERT INTO transactions (transaction_id, original_transaction_id, bundle_id, product_id, group_id, user_id,
                purchase_ms, expires_ms, revocation_ms, offer_type, offer_id, offer_discount_type, price, storefront,
                signed_date_ms, environment, signed_transaction)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(transaction_id) DO UPDATE SET original_transaction_id = excluded.original_transaction_id,
                bundle_id = excluded.bundle_id, product_id = excluded.product_id, group_id = excluded.group_id,
                user_id = excluded.user_id, purchase_ms = excluded.purchase_ms, expires_ms = excluded.expires_ms,
                revocation_ms = excluded.revocation_ms, offer_type = excluded.offer_type, offer_id = excluded.offer_id,
                offer_discount_type = excluded.offer_discount_type, price = excluded.price, storefront = excluded.storefront,
                signed_date_ms = excluded.signed_date_ms, environment = excluded.environment,
                signed_transaction = excluded.signed_transaction
            WHERE excluded.signed_date_ms > transactions.signed_date_ms
            """, [.text(t.transactionId), .text(t.originalTransactionId), .text(t.bundleId), .text(t.productId),
                  .text(t.subscriptionGroupIdentifier), .optional(t.appAccountToken?.lowercased()),
                  .integer(t.purchaseDate.milliseconds), .optional(t.expiresDate?.milliseconds),
                  .optional(t.revocationDate?.milliseconds), .optional(t.offerType.map(Int64.init)), .optional(t.offerIdentifier),
                  .optional(t.offerDiscountType), .optional(t.price.map(Int64.init)), .optional(t.storefront),
                  .integer(t.signedDate.milliseconds), .optional(stored.environment), .text(stored.signedTransaction)])
        return db.changes == 1
    }

    private static func upsert(_ stored: StoredRenewal, _ db: SQLiteConnection) throws -> Bool {
        let r = stored.renewal
        try db.run("""
            INSERT INTO renewals (original_transaction_id, product_id, auto_renew_status, in_billing_retry, grace_expires_ms,
                signed_date_ms, environment, signed_renewal_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(original_transaction_id) DO UPDATE SET product_id = excluded.product_id,
                auto_renew_status = excluded.auto_renew_status, in_billing_retry = excluded.in_billing_retry,
                grace_expires_ms = excluded.grace_expires_ms, signed_date_ms = excluded.signed_date_ms,
                environment = excluded.environment, signed_renewal_info = excluded.signed_renewal_info
            WHERE excluded.signed_date_ms > renewals.signed_date_ms
            """, [.text(r.originalTransactionId), .optional(r.productId), .optional(r.autoRenewStatus.map(Int64.init)),
                  .optional(r.isInBillingRetryPeriod.map { $0 ? 1 : 0 }), .optional(r.gracePeriodExpiresDate?.milliseconds),
                  .integer(r.signedDate.milliseconds), .optional(stored.environment), .text(stored.signedRenewalInfo)])
        return db.changes == 1
    }

    /// Driven by the user's index, then each subscription's transactions by
    /// `original_transaction_id` (the unary `+` keeps SQLite from scanning the whole bundle).
    public func history(userId: String, bundleId: String) throws -> UserHistory {
        try database.read { db in
            let transactions = try db.query("""
                SELECT transaction_id, original_transaction_id, bundle_id, product_id, group_id, purchase_ms, expires_ms,
                    revocation_ms, offer_type, offer_id, offer_discount_type, price, storefront, user_id, signed_date_ms
                FROM transactions WHERE original_transaction_id IN
                    (SELECT original_transaction_id FROM transactions WHERE bundle_id = ?1 AND user_id = ?2)
                    AND +bundle_id = ?1
                """, [.text(bundleId), .text(userId)]) { row in
                SubscriptionTransaction(
                    transactionId: row.text(0), originalTransactionId: row.text(1), bundleId: row.text(2),
                    productId: row.text(3), subscriptionGroupIdentifier: row.text(4),
                    purchaseDate: Date(milliseconds: row.int64(5)), expiresDate: row.optionalInt64(6).map(Date.init(milliseconds:)),
                    revocationDate: row.optionalInt64(7).map(Date.init(milliseconds:)), offerType: row.optionalInt64(8).map(Int.init),
                    offerIdentifier: row.optionalText(9), offerDiscountType: row.optionalText(10),
                    price: row.optionalInt64(11).map(Int.init), storefront: row.optionalText(12),
                    appAccountToken: row.optionalText(13), signedDate: Date(milliseconds: row.int64(14)))
            }
            let originals = Set(transactions.map(\.originalTransactionId))
            let renewals = try originals.sorted().flatMap { original in
                try db.query("""
                    SELECT original_transaction_id, product_id, auto_renew_status, in_billing_retry, grace_expires_ms, signed_date_ms
                    FROM renewals WHERE original_transaction_id = ?
                    """, [.text(original)]) { row in
                    SubscriptionRenewalState(
                        originalTransactionId: row.text(0), productId: row.optionalText(1),
                        autoRenewStatus: row.optionalInt64(2).map(Int.init), isInBillingRetryPeriod: row.optionalInt64(3).map { $0 != 0 },
                        gracePeriodExpiresDate: row.optionalInt64(4).map(Date.init(milliseconds:)), signedDate: Date(milliseconds: row.int64(5)))
                }
            }
            return UserHistory(transactions: transactions, renewals: renewals)
        }
    }

    public func subscriptionGroup(productId: String, bundleId: String) throws -> String? {
        try database.read { db in
            try db.query("SELECT group_id FROM transactions WHERE bundle_id = ? AND product_id = ? LIMIT 1",
                         [.text(bundleId), .text(productId)]) { $0.text(0) }.first
        }
    }

    public func knownUsers(bundleId: String, afterUserId: String, limit: Int) throws -> [String] {
        try database.read(.audit) { db in
            try db.query("""
                SELECT DISTINCT user_id FROM transactions WHERE bundle_id = ? AND user_id IS NOT NULL AND user_id > ?
                ORDER BY user_id LIMIT ?
                """, [.text(bundleId), .text(afterUserId), .integer(Int64(limit))]) { $0.text(0) }
        }
    }
}
