import Foundation
import OfferSignerCore

/// Verified App Store history, group-committed per process. A `RESCIND_CONSENT` notification's
/// rescinding is stored with it, in the same transaction (read through ``SQLConsentStore``). Idempotent across instances: a
/// notification is inserted `ON CONFLICT DO NOTHING` on its `notificationUUID`, so when Apple
/// delivers one to two instances at once the second insert waits for the first to commit and
/// then changes nothing (the second instance answers it as a duplicate); transactions and
/// renewal infos upsert on their keys, the newest `signedDate` winning whichever writes last.
final class SQLHistoryStore<Database: SQLDatabase>: SubscriptionHistoryStore, Sendable {
    private let database: Database
    private let committer: GroupCommitter<HistoryItem, Bool>
    /// Where `consent.rescinded` events go, in the notification's transaction.
    private let outbox: WebhookOutbox?

    init(database: Database, outbox: WebhookOutbox? = nil) {
        self.database = database
        self.outbox = outbox
        committer = GroupCommitter(database: database, name: "history-writer") { batch, db in
            try batch.map { .success(try Self.write($0, db, outbox: outbox)) }
        }
    }

    deinit { committer.close() }

    /// Stops the writer once the items already waiting are written.
    public func close() { committer.close() }

    public func record(_ item: HistoryItem) throws -> Bool {
        try committer.submit(item).get()
    }

    public func record(batch items: [HistoryItem]) throws -> [Bool] {
        try database.inTransaction { db in try items.map { try Self.write($0, db, outbox: outbox) } }
    }

    private static func write(_ item: HistoryItem, _ db: Database.Connection, outbox: WebhookOutbox?) throws -> Bool {
        switch item {
        case .notification(let notification, let transaction, let renewal):
            let inserted = try db.change("""
                INSERT INTO notifications (notification_uuid, notification_type, subtype, bundle_id, environment,
                    signed_date_ms, received_at_ms, signed_payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (notification_uuid) DO NOTHING
                """, [.text(notification.notificationUUID), .text(notification.notificationType), .optional(notification.subtype),
                      .optional(notification.bundleId), .optional(notification.environment), .integer(notification.signedDate),
                      .integer(notification.receivedAt), .text(notification.signedPayload)])
            guard inserted == 1 else { return false }
            if let appTransactionId = notification.rescindsConsentOf, let bundleId = notification.bundleId,
               let environment = notification.environment.flatMap(AppStoreEnvironment.init(rawValue:)) {
                let rescinding = ConsentEvent(
                    appTransactionId: appTransactionId, environment: environment, bundleId: bundleId, action: .rescind,
                    at: Date(milliseconds: min(notification.signedDate, notification.receivedAt)),
                    recordedAt: Date(milliseconds: notification.receivedAt),
                    notificationUUID: notification.notificationUUID)
                if try SQLConsentStore<Database>.insertRescinding(rescinding, db), let outbox, outbox.isSubscribed(.consentRescinded) {
                    try outbox.write([WebhookEvents.consent(rescinding)], db, now: Date())
                }
            }
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
    private static func upsert(_ stored: StoredTransaction, _ db: Database.Connection) throws -> Bool {
        let t = stored.transaction
        return try db.change("""
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, bundle_id, product_id, group_id,
                user_id, purchase_ms, expires_ms, revocation_ms, revocation_reason, revocation_type, revocation_percentage,
                is_upgraded, ownership_type, transaction_reason, offer_type, offer_id, offer_discount_type, price, storefront,
                signed_date_ms, signed_transaction, app_transaction_id, offer_period, billing_plan_type, commitment_info,
                advanced_commerce_info, currency)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (environment, transaction_id) DO UPDATE SET original_transaction_id = excluded.original_transaction_id,
                bundle_id = excluded.bundle_id, product_id = excluded.product_id, group_id = excluded.group_id,
                user_id = excluded.user_id, purchase_ms = excluded.purchase_ms, expires_ms = excluded.expires_ms,
                revocation_ms = excluded.revocation_ms, revocation_reason = excluded.revocation_reason,
                revocation_type = excluded.revocation_type, revocation_percentage = excluded.revocation_percentage,
                is_upgraded = excluded.is_upgraded, ownership_type = excluded.ownership_type,
                transaction_reason = excluded.transaction_reason, offer_type = excluded.offer_type, offer_id = excluded.offer_id,
                offer_discount_type = excluded.offer_discount_type, price = excluded.price, storefront = excluded.storefront,
                signed_date_ms = excluded.signed_date_ms, signed_transaction = excluded.signed_transaction,
                app_transaction_id = excluded.app_transaction_id, offer_period = excluded.offer_period,
                billing_plan_type = excluded.billing_plan_type, commitment_info = excluded.commitment_info,
                advanced_commerce_info = excluded.advanced_commerce_info, currency = excluded.currency
            WHERE excluded.signed_date_ms > transactions.signed_date_ms
            """, [.text(t.environment.rawValue), .text(t.transactionId), .text(t.originalTransactionId), .text(t.bundleId),
                  .text(t.productId), .text(t.subscriptionGroupIdentifier), .optional(t.appAccountToken?.lowercased()),
                  .integer(t.purchaseDate.milliseconds), .optional(t.expiresDate?.milliseconds),
                  .optional(t.revocationDate?.milliseconds), .optional(t.revocationReason.map(Int64.init)),
                  .optional(t.revocationType), .optional(t.revocationPercentage.map(Int64.init)),
                  .optional(t.isUpgraded.map { $0 ? 1 : 0 }), .optional(t.inAppOwnershipType), .optional(t.transactionReason),
                  .optional(t.offerType.map(Int64.init)), .optional(t.offerIdentifier), .optional(t.offerDiscountType),
                  .optional(t.price.map(Int64.init)), .optional(t.storefront), .integer(t.signedDate.milliseconds),
                  .text(stored.signedTransaction), .optional(t.appTransactionId), .optional(t.offerPeriod),
                  .optional(t.billingPlanType), HistoryRows.jsonText(t.commitmentInfo),
                  HistoryRows.jsonText(t.advancedCommerceInfo),
                  // As the report read it from the JWS before the column (the same function fills older rows).
                  .optional(SignedPayloadField.currency(inJWS: stored.signedTransaction))]) == 1
    }

    /// Inserts the renewal info, or replaces the stored one of its subscription (same
    /// environment and `originalTransactionId`) when this one was signed later.
    private static func upsert(_ stored: StoredRenewal, _ db: Database.Connection) throws -> Bool {
        let r = stored.renewal
        return try db.change("""
            INSERT INTO renewals (environment, original_transaction_id, product_id, auto_renew_status, in_billing_retry,
                grace_expires_ms, expiration_intent, win_back_offer_ids, signed_date_ms, signed_renewal_info, app_transaction_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (environment, original_transaction_id) DO UPDATE SET product_id = excluded.product_id,
                auto_renew_status = excluded.auto_renew_status, in_billing_retry = excluded.in_billing_retry,
                grace_expires_ms = excluded.grace_expires_ms, expiration_intent = excluded.expiration_intent,
                win_back_offer_ids = excluded.win_back_offer_ids, signed_date_ms = excluded.signed_date_ms,
                signed_renewal_info = excluded.signed_renewal_info, app_transaction_id = excluded.app_transaction_id
            WHERE excluded.signed_date_ms > renewals.signed_date_ms
            """, [.text(r.environment.rawValue), .text(r.originalTransactionId), .optional(r.productId),
                  .optional(r.autoRenewStatus.map(Int64.init)), .optional(r.isInBillingRetryPeriod.map { $0 ? 1 : 0 }),
                  .optional(r.gracePeriodExpiresDate?.milliseconds), .optional(r.expirationIntent.map(Int64.init)),
                  .text(WinBackOfferIds.encode(r.eligibleWinBackOfferIds)), .integer(r.signedDate.milliseconds),
                  .text(stored.signedRenewalInfo), .optional(r.appTransactionId)]) == 1
    }

    /// The user's transactions with every transaction of the same subscriptions (one without
    /// the user's token still counts), and those subscriptions' renewal infos, by subscription
    /// then transaction ID. Where a statement is a round trip, in one statement (see
    /// ``historySQL``); otherwise driven by the user's index for the user's subscriptions, then
    /// each subscription's rows by the (environment, `original_transaction_id`) indexes, in
    /// fixed SQL and no `IN (SELECT …)`, whose temporary table SQLite would build and drop on
    /// every lookup. Rows of an environment this build does not know are left out.
    ///
    /// Specialised for each engine (`@specialized`): callers reach the store through
    /// `any SubscriptionHistoryStore`, whose witness is the generic method, so without it the
    /// signing path's read ran unspecialised — every row, column and `select` through the
    /// engine's witness tables, `Array<T>` metadata looked up per statement (issue 38).
    @specialized(where Database == SQLiteDatabase)
    @specialized(where Database == PostgreSQLDatabase)
    public func history(userId: String, bundleId: String) throws -> UserHistory {
        try database.withReader { db in
            guard !database.statementsAreRoundTrips else {
                var history = UserHistory()
                _ = try db.select(HistorySQL.historySQL, [.text(bundleId), .text(bundleId), .text(userId)]) { row in
                    if row.int64(0) == 0 {
                        if let transaction = HistoryRows.transaction(OffsetRow(row: row, offset: 1)) { history.transactions.append(transaction) }
                    } else if let renewal = HistoryRows.renewal(OffsetRow(row: row, offset: 1 + HistorySQL.transactionColumnCount)) {
                        history.renewals.append(renewal)
                    }
                }
                return history
            }
            // One row per transaction: sorted, then each subscription once.
            var subscriptions = try db.select(HistorySQL.userSubscriptionsSQL, [.text(bundleId), .text(userId)]) { row in
                HistoryRows.environment(row, 0).map { Subscription(environment: $0, original: row.text(1)) }
            }.compactMap { $0 }
            subscriptions.sort()
            var history = UserHistory()
            var previous: Subscription?
            for subscription in subscriptions where subscription != previous {
                previous = subscription
                try Self.subscription(db, environment: subscription.environment.rawValue, original: subscription.original,
                                      bundleId: bundleId, into: &history)
            }
            return history
        }
    }

    /// Driven by the (environment, `original_transaction_id`) index of both tables. Renewal
    /// infos name no app, so they count only when the app has transactions of the subscription.
    @specialized(where Database == SQLiteDatabase)
    @specialized(where Database == PostgreSQLDatabase)
    public func history(originalTransactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try database.withReader { db in
            var history = UserHistory()
            try Self.subscription(db, environment: environment.rawValue, original: originalTransactionId, bundleId: bundleId,
                                  into: &history)
            return history
        }
    }

    @specialized(where Database == SQLiteDatabase)
    @specialized(where Database == PostgreSQLDatabase)
    public func history(transactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try database.withReader { db in
            let original = try db.first("""
                SELECT original_transaction_id FROM transactions WHERE environment = ? AND transaction_id = ? AND bundle_id = ?
                """, [.text(environment.rawValue), .text(transactionId), .text(bundleId)]) { $0.text(0) }
            var history = UserHistory()
            try Self.subscription(db, environment: environment.rawValue, original: original ?? transactionId, bundleId: bundleId,
                                  into: &history)
            return history
        }
    }

    /// Appends one subscription's transactions in the app by transaction ID, and its renewal
    /// info when there are any, to `history`: each row decoded once, straight into its place
    /// (no array of optionals, no copy into another array; issue 38).
    private static func subscription(_ db: Database.Connection, environment: String, original: String, bundleId: String,
                                     into history: inout UserHistory) throws {
        let key: [SQLValue] = [.text(environment), .text(original)]
        let first = history.transactions.endIndex
        _ = try db.select(HistorySQL.subscriptionTransactionsSQL, key + [.text(bundleId)]) { row in
            if let transaction = HistoryRows.transaction(row) { history.transactions.append(transaction) }
        }
        guard history.transactions.endIndex > first else { return }
        // Sorted here, not by ORDER BY: SQLite would then walk the (environment, transaction_id)
        // key instead of looking the subscription up by its index. In place, through the
        // array's buffer: sorting `transactions[first...]` would copy the slice out and back
        // (each transaction's strings retained and released; issue 38).
        history.transactions.withUnsafeMutableBufferPointer { $0[first...].sort { $0.transactionId < $1.transactionId } }
        _ = try db.select(HistorySQL.subscriptionRenewalSQL, key) { row in
            if let renewal = HistoryRows.renewal(row) { history.renewals.append(renewal) }
        }
    }

    public func subscriptionGroup(productId: String, bundleId: String, environment: AppStoreEnvironment) throws -> String? {
        try database.withReader { db in
            try db.first("SELECT group_id FROM transactions WHERE bundle_id = ? AND product_id = ? AND environment = ? LIMIT 1",
                         [.text(bundleId), .text(productId), .text(environment.rawValue)]) { $0.text(0) }
        }
    }

    public func knownUsers(bundleId: String, environment: AppStoreEnvironment, afterUserId: String, limit: Int) throws -> [String] {
        try database.withReader(.audit) { db in
            try db.select("""
                SELECT DISTINCT user_id FROM transactions
                WHERE bundle_id = ? AND user_id IS NOT NULL AND user_id > ? AND environment = ?
                ORDER BY user_id LIMIT ?
                """, [.text(bundleId), .text(afterUserId), .text(environment.rawValue), .limit(limit)]) { $0.text(0) }
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

/// A row read from column `offset` on, as if that were its first column.
private struct OffsetRow<Row: StoreRow>: StoreRow {
    let row: Row
    let offset: Int32

    func isNull(_ column: Int32) -> Bool { row.isNull(column + offset) }
    func int64(_ column: Int32) -> Int64 { row.int64(column + offset) }
    func text(_ column: Int32) -> String { row.text(column + offset) }
    func text(_ column: Int32, is value: String) -> Bool { row.text(column + offset, is: value) }
}

/// The store as SQLite's callers know it.
typealias SQLiteHistoryStore = SQLHistoryStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLHistoryStore = SQLHistoryStore<PostgreSQLDatabase>

/// The statements and constants of the store (a generic class cannot hold stored statics).
private enum HistorySQL {
    static let userSubscriptionsSQL = "SELECT environment, original_transaction_id FROM transactions WHERE bundle_id = ? AND user_id = ?"

    static let subscriptionTransactionsSQL = """
        SELECT \(HistoryRows.transactionColumns) FROM transactions
        WHERE environment = ? AND original_transaction_id = ? AND bundle_id = ?
        """

    static let subscriptionRenewalSQL = "SELECT \(HistoryRows.renewalColumns) FROM renewals WHERE environment = ? AND original_transaction_id = ?"

    /// The user's history in one statement (one round trip on the signing path): each row is a
    /// transaction (kind 0, its columns first) or a renewal info (kind 1, its columns after the
    /// transaction's). Parameters: the bundle ID twice, then the user ID.
    static let transactionColumnCount: Int32 = 27

    static let historySQL = """
        WITH t AS (
            SELECT \(HistoryRows.transactionColumns) FROM transactions WHERE bundle_id = ? AND (environment, original_transaction_id) IN
                (SELECT environment, original_transaction_id FROM transactions WHERE bundle_id = ? AND user_id = ?)
        )
        SELECT 0, t.*, NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::text,
               NULL::bigint, NULL::text FROM t
        UNION ALL
        SELECT 1, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint,
               NULL::bigint, NULL::text, NULL::bigint, NULL::bigint, NULL::text, NULL::text, NULL::bigint, NULL::text, NULL::text,
               NULL::bigint, NULL::text, NULL::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
               \(HistoryRows.renewalColumns.split(separator: ",").map { "r." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", "))
        FROM renewals r WHERE (r.environment, r.original_transaction_id) IN (SELECT environment, original_transaction_id FROM t)
        ORDER BY 1, 2, 4, 3, 29, 30
        """
}
