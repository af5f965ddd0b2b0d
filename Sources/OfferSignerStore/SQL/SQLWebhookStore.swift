import Foundation
import OfferSignerCore

/// Webhooks, their changes and the outbox, written once for both engines.
final class SQLWebhookStore<Database: SQLDatabase>: WebhookStore, Sendable {
    private let database: Database
    let outbox: WebhookOutbox
    /// Seals the secrets written and opens those read (nil: no key, secrets written in plain text).
    private let secrets: WebhookSecretSealer?

    init(database: Database, outbox: WebhookOutbox, secrets: WebhookSecretSealer? = nil) throws {
        self.database = database
        self.outbox = outbox
        self.secrets = secrets
        try reloadSubscriptions()
    }

    func webhook(id: String) throws -> StoredWebhook? {
        try database.withReader { db in
            try db.first("SELECT \(SQLWebhookRows.webhookColumns) FROM webhooks WHERE webhook_id = ?", [.text(id)]) {
                try SQLWebhookRows.webhook($0, secrets: secrets)
            }
        }
    }

    func webhooks() throws -> [StoredWebhook] {
        try database.withReader { db in try SQLWebhookRows.webhooks(db, secrets: secrets) }
    }

    /// `secret` as it is written: sealed when a key is configured.
    private func stored(_ secret: String, _ webhookId: String) -> String {
        secrets.map { $0.seal(secret, webhookId: webhookId) } ?? secret
    }

    func sealSecrets() throws -> Int {
        let rows = try database.withReader { db in
            try db.select("SELECT webhook_id, secret, previous_secret FROM webhooks ORDER BY webhook_id") { row in
                (id: row.text(0), secret: row.text(1), previous: row.optionalText(2))
            }
        }
        var sealed = 0
        for row in rows {
            // Refused without the key (or with another): every secret must be readable before the service starts.
            _ = try WebhookSecretSealer.open(row.secret, webhookId: row.id, with: secrets)
            if let previous = row.previous { _ = try WebhookSecretSealer.open(previous, webhookId: row.id, with: secrets) }
            guard secrets != nil, !WebhookSecretSealer.isSealed(row.secret) || row.previous.map(WebhookSecretSealer.isSealed) == false else {
                continue
            }
            let secret = WebhookSecretSealer.isSealed(row.secret) ? row.secret : stored(row.secret, row.id)
            let previous = row.previous.map { WebhookSecretSealer.isSealed($0) ? $0 : stored($0, row.id) }
            // Changed only if still as read (another instance may seal it, or a rotation replace it, meanwhile).
            sealed += try database.inTransaction { db -> Int in
                if let old = row.previous {
                    return try db.change("""
                        UPDATE webhooks SET secret = ?, previous_secret = ? WHERE webhook_id = ? AND secret = ? AND previous_secret = ?
                        """, [.text(secret), .optional(previous), .text(row.id), .text(row.secret), .text(old)])
                }
                return try db.change("UPDATE webhooks SET secret = ? WHERE webhook_id = ? AND secret = ? AND previous_secret IS NULL",
                                     [.text(secret), .text(row.id), .text(row.secret)])
            }
        }
        return sealed
    }

    func put(_ w: StoredWebhook, change: WebhookChange) throws {
        try database.inTransaction { db in
            let values: [SQLValue] = [
                .text(w.url), .text(w.events.map(\.rawValue).joined(separator: ",")), .optional(w.bundleIds?.joined(separator: ",")),
                .integer(w.enabled ? 1 : 0), .text(stored(w.secret, w.id)), .optional(w.previousSecret.map { stored($0, w.id) }),
                .optional(w.previousSecretExpiresAt?.milliseconds), .integer(w.updatedAt.milliseconds),
            ]
            let updated = try db.change("""
                UPDATE webhooks SET url = ?, events = ?, bundle_ids = ?, enabled = ?, secret = ?, previous_secret = ?,
                    previous_secret_until_ms = ?, updated_at_ms = ? WHERE webhook_id = ?
                """, values + [.text(w.id)])
            if updated == 0 {
                try db.change("""
                    INSERT INTO webhooks (url, events, bundle_ids, enabled, secret, previous_secret, previous_secret_until_ms,
                        updated_at_ms, webhook_id, created_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, values + [.text(w.id), .integer(w.createdAt.milliseconds)])
            }
            try Self.insert(change, db)
        }
        try reloadSubscriptions()
    }

    func delete(id: String, change: WebhookChange) throws -> Bool {
        let deleted = try database.inTransaction { db -> Bool in
            guard try db.change("DELETE FROM webhooks WHERE webhook_id = ?", [.text(id)]) > 0 else { return false }
            try db.change("DELETE FROM webhook_outbox WHERE webhook_id = ?", [.text(id)])
            try Self.insert(change, db)
            return true
        }
        try reloadSubscriptions()
        return deleted
    }

    func changes(webhookId: String, afterId: Int64, limit: Int) throws -> [WebhookChange] {
        try database.withReader(.audit) { db in
            try db.select("""
                SELECT id, webhook_id, action, actor, at_ms, document FROM webhook_changes WHERE webhook_id = ? AND id > ? ORDER BY id LIMIT ?
                """, [.text(webhookId), .integer(afterId), .limit(limit)]) { row in
                WebhookChange(id: row.int64(0), webhookId: row.text(1), action: WebhookChange.Action(rawValue: row.text(2)) ?? .updated,
                              actor: row.text(3), at: Date(milliseconds: row.int64(4)), document: row.optionalText(5))
            }
        }
    }

    private static func insert(_ change: WebhookChange, _ db: Database.Connection) throws {
        try db.change("INSERT INTO webhook_changes (webhook_id, action, actor, at_ms, document) VALUES (?, ?, ?, ?, ?)",
                      [.text(change.webhookId), .text(change.action.rawValue), .text(change.actor), .integer(change.at.milliseconds),
                       .optional(change.document)])
    }

    func enqueue(_ events: [WebhookEvent], at now: Date) throws -> Int {
        guard events.contains(where: { outbox.isSubscribed($0.type, bundleId: $0.bundleId) }) else { return 0 }
        return try database.inTransaction { db in try outbox.write(events, db, now: now) }
    }

    func isSubscribed(_ type: WebhookEventType) -> Bool {
        outbox.isSubscribed(type)
    }

    func isSubscribed(_ type: WebhookEventType, bundleId: String?) -> Bool {
        outbox.isSubscribed(type, bundleId: bundleId)
    }

    func reloadSubscriptions() throws {
        try database.withReader { db in try outbox.reload(db) }
    }

    /// The oldest due deliveries, at most one per user and webhook, none of them behind an earlier
    /// undelivered one of its user and webhook. An earlier one holds a later back in two ways:
    /// it was claimed or tried (leased, or pending after a failure: in the small index
    /// `webhook_outbox_held`, which holds only such rows, so writing an event touches none of
    /// its pages), or it is untouched, and then due and among the candidates, ahead of the later
    /// (only the first of each user is kept). The candidates are read without row locks, then
    /// locked, skipping any another instance is claiming, so a row of a user another instance
    /// is claiming still holds that user's later rows back.
    ///
    /// The claim's commit is ``CommitSync/withProcess``: on SQLite it is not synced by itself (a
    /// crash that loses it ends this process and its posts too: the rows are claimed again, and
    /// sent again, at least once), and any later durable commit (the signature log's next batch)
    /// syncs it; on PostgreSQL it stays durable, so a lease outlives a crash of the server while
    /// this instance is still posting, and no other instance takes those rows meanwhile. It
    /// returns only once every signature batch it could read is durable (on SQLite the batches
    /// are synced by the WAL's syncer after their commit), so no event leaves before its record.
    func claim(limit: Int, now: Date, lease: Duration, webhookId: String?) throws -> [ClaimedDelivery] {
        let at = now.milliseconds
        let claim = SecureRandom.token(byteCount: 12)
        let ofWebhook = webhookId == nil ? "" : "AND o.webhook_id = ?"
        return try database.inTransactionReadingDurable(syncing: .withProcess) { db in
            // An untouched row (no try yet: just written, retried or replayed) is due at once.
            let candidates = try db.select("""
                SELECT o.id, o.webhook_id, o.event_id, o.body, o.attempts, o.queued_at_ms, o.ordering_key FROM webhook_outbox o
                WHERE o.state = 'pending' AND (o.attempts = 0 OR o.next_attempt_ms <= ?) AND (o.lease_until_ms IS NULL OR o.lease_until_ms <= ?)
                  \(ofWebhook)
                  AND NOT EXISTS (SELECT 1 FROM webhook_outbox p WHERE p.webhook_id = o.webhook_id AND p.ordering_key = o.ordering_key
                                  AND p.id < o.id AND p.state = 'pending' AND (p.attempts > 0 OR p.lease_until_ms IS NOT NULL))
                ORDER BY o.id LIMIT ?
                """, [.integer(at), .integer(at)] + (webhookId.map { [SQLValue.text($0)] } ?? []) + [.limit(limit)]) { row in
                (id: row.int64(0), webhookId: row.text(1), eventId: row.text(2), body: row.text(3), attempts: row.int(4),
                 queued: row.int64(5), key: row.text(6))
            }
            var users = Set<[String]>()
            var due = candidates.filter { users.insert([$0.webhookId, $0.key]).inserted }
            if !db.lockingRowsSkippingLocked.isEmpty, !due.isEmpty {
                // Another instance may be claiming some of them: those it holds (or has just leased) are left to it.
                let locked = Set(try db.select("""
                    SELECT id FROM webhook_outbox WHERE id IN (\(Array(repeating: "?", count: due.count).joined(separator: ", ")))
                      AND state = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms <= ?) \(db.lockingRowsSkippingLocked)
                    """, due.map { .integer($0.id) } + [.integer(at)]) { $0.int64(0) })
                due = due.filter { locked.contains($0.id) }
            }
            let leaseEnd = (now + TimeInterval(Double(lease.components.seconds) * Double(max(due.count, 1)))).milliseconds
            // One statement leases them all (per up to 64 rows), not one per row.
            try WebhookDeliveryStatements.lease(due.map(\.id), until: leaseEnd, claim: claim, db)
            return due.map { row in
                ClaimedDelivery(id: row.id, webhookId: row.webhookId, eventId: row.eventId, body: row.body, attempts: row.attempts,
                                queuedAt: Date(milliseconds: row.queued), claim: claim)
            }
        }
    }

    /// The tries' commit is ``CommitSync/deferred`` (SQLite `synchronous=NORMAL`, PostgreSQL
    /// `synchronous_commit = off`): a crash that loses it leaves the deliveries claimed, and they
    /// are sent again once the lease ends (at least once; receivers deduplicate by ID). It is
    /// durable with the next durable commit; commits are durable in order, so a crash never keeps
    /// a later claim (of the user's next event) while losing the record it was claimed on: order
    /// per user holds after a crash too.
    func record(_ attempts: [DeliveryAttempt]) throws -> [Bool] {
        guard !attempts.isEmpty else { return [] }
        let inOneStatement = database.statementsAreRoundTrips
        return try database.inTransaction(syncing: .deferred) { db in
            try WebhookDeliveryStatements.record(attempts, inOneStatement: inOneStatement, db)
        }
    }

    func deliveries(webhookId: String, state: WebhookDelivery.State?, beforeId: Int64?, limit: Int) throws -> [WebhookDelivery] {
        var conditions = SQLConditions()
        conditions.add("webhook_id = ?", .text(webhookId))
        conditions.add("state", equals: state?.rawValue)
        if let beforeId { conditions.add("id < ?", .integer(beforeId)) }
        return try database.withReader(.audit) { db in
            try db.select("SELECT \(SQLWebhookRows.deliveryColumns) FROM webhook_outbox WHERE \(conditions.sql) ORDER BY id DESC LIMIT ?",
                          conditions.values + [.limit(limit)]) { try SQLWebhookRows.delivery($0) }
        }
    }

    func retry(webhookId: String, eventId: String, at now: Date) throws -> Bool {
        try database.inTransaction { db in
            try db.change("""
                UPDATE webhook_outbox SET state = 'pending', attempts = 0, queued_at_ms = ?, next_attempt_ms = ?, delivered_at_ms = NULL,
                    lease_until_ms = NULL, claim = NULL
                WHERE webhook_id = ? AND event_id = ?
                """, [.integer(now.milliseconds), .integer(now.milliseconds), .text(webhookId), .text(eventId)]) > 0
        }
    }

    func replay(webhookId: String, from: Date, to: Date, at now: Date) throws -> Int {
        try database.inTransaction { db in
            try db.change("""
                UPDATE webhook_outbox SET state = 'pending', attempts = 0, queued_at_ms = ?, next_attempt_ms = ?, delivered_at_ms = NULL,
                    lease_until_ms = NULL, claim = NULL
                WHERE webhook_id = ? AND occurred_at_ms >= ? AND occurred_at_ms < ?
                """, [.integer(now.milliseconds), .integer(now.milliseconds), .text(webhookId), .integer(from.milliseconds),
                      .integer(to.milliseconds)])
        }
    }

    func oldestUndelivered() throws -> Date? {
        try database.withReader { db in
            let oldest: Int64?? = try db.first("SELECT MIN(queued_at_ms) FROM webhook_outbox WHERE state = 'pending'") {
                $0.optionalInt64(0)
            }
            return (oldest ?? nil).map(Date.init(milliseconds:))
        }
    }

    func pruneDelivered(before: Date, batchSize: Int) throws -> Int {
        try database.inTransaction { db in
            try db.change("""
                DELETE FROM webhook_outbox WHERE id IN (
                    SELECT id FROM webhook_outbox WHERE state = 'delivered' AND delivered_at_ms < ? ORDER BY id LIMIT ?)
                """, [.integer(before.milliseconds), .limit(batchSize)])
        }
    }
}
