import Foundation
import OfferSignerCore
import Synchronization

/// Offer rules in PostgreSQL, mirrored in memory so the signing path never waits on the
/// database for them (nor fails when it is down: the last rules read stay in force). A
/// change commits with a `NOTIFY` on ``channel``; every instance's ``OfferChangeListener``
/// reloads its mirror when one arrives, and checks for changes once a second besides, so a
/// rule changed through one instance is in force on all within about a second even when a
/// notification was missed (a listener reconnecting after a restart).
public final class PostgreSQLOfferStore: OfferStore, Sendable {
    /// The `LISTEN`/`NOTIFY` channel of offer changes.
    static let channel = "offer_signer_offer_changes"
    /// The advisory lock key that orders offer changes of every instance.
    static let changeLock: Int64 = 0x6f66_6665_7273_02

    private let database: PostgreSQLDatabase
    private let mirror = Mutex(Mirror())
    private let listener: Mutex<OfferChangeListener?> = Mutex(nil)

    /// The rules in memory and the state of `offer_changes` they reflect.
    private struct Mirror {
        var offers: [OfferKey: StoredOffer] = [:]
        var stamp = Stamp(count: -1, newest: -1)
    }

    /// How many changes there are and the newest's ID: a change committed late with a lower
    /// ID still changes the count.
    private struct Stamp: Equatable {
        let count: Int64
        let newest: Int64
    }

    /// Loads the rules. With `followChanges`, a listener thread keeps them in step with
    /// changes made through other instances until `close()`.
    public init(database: PostgreSQLDatabase, followChanges: Bool = true) throws {
        self.database = database
        try refresh(force: true)
        if followChanges {
            let listener = OfferChangeListener(database: database, channel: Self.channel) { [weak self] notified in
                try self?.refresh(force: notified)
            }
            self.listener.withLock { $0 = listener }
        }
    }

    deinit {
        close()
    }

    /// Stops following changes.
    public func close() {
        listener.withLock { listener in
            listener?.stop()
            listener = nil
        }
    }

    public func offer(bundleId: String, offerId: String) throws -> StoredOffer? {
        mirror.withLock { $0.offers[OfferKey(bundleId: bundleId, offerId: offerId)] }
    }

    public func offers() throws -> [StoredOffer] {
        mirror.withLock { Array($0.offers.values) }.sorted { OfferKey($0.rule) < OfferKey($1.rule) }
    }

    public func put(_ rule: OfferRule, by actor: String, at now: Date) throws -> StoredOffer {
        try apply([rule], by: actor, at: now)[0]
    }

    public func apply(_ rules: [OfferRule], by actor: String, at now: Date) throws -> [StoredOffer] {
        try change { db in
            try rules.map { rule in try Self.change(OfferKey(rule), db, by: actor, at: now) { _ in rule }! }
        }
    }

    public func disable(bundleId: String, offerId: String, by actor: String, at now: Date) throws -> StoredOffer? {
        try change { db in
            try Self.change(OfferKey(bundleId: bundleId, offerId: offerId), db, by: actor, at: now) { existing in
                guard var rule = existing?.rule else { return nil }
                rule.enabled = false
                return rule
            }
        }
    }

    /// Runs `body` in one transaction holding the change lock (so two instances changing one
    /// offer at once make two versions, not one twice), notifies every listener on commit,
    /// then brings this instance's mirror up to date.
    private func change<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let result = try database.write { db in
            try db.query("SELECT pg_advisory_xact_lock($1)", [.integer(Self.changeLock)])
            let result = try body(db)
            try db.query("SELECT pg_notify($1, '')", [.text(Self.channel)])
            return result
        }
        try refresh(force: true)
        return result
    }

    /// Applies `update` to one stored rule, recording the change; nil when `update` returns nil.
    private static func change(_ key: OfferKey, _ db: PostgreSQLConnection, by actor: String, at now: Date,
                               _ update: (StoredOffer?) -> OfferRule?) throws -> StoredOffer? {
        let existing = try db.query("""
            SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers WHERE bundle_id = $1 AND offer_id = $2
            """, [.text(key.bundleId), .text(key.offerId)]).map { try RuleCoding.storedOffer($0) }.first
        guard let rule = update(existing) else { return nil }
        if let existing, existing.rule == rule { return existing }
        let next = StoredOffer(rule: rule, version: (existing?.version ?? 0) + 1, createdAt: existing?.createdAt ?? now, updatedAt: now)
        let json = try RuleCoding.encode(rule)
        try db.query("""
            INSERT INTO offers (bundle_id, offer_id, rule_json, version, created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (bundle_id, offer_id) DO UPDATE SET rule_json = excluded.rule_json,
                version = excluded.version, updated_at_ms = excluded.updated_at_ms
            """, [.text(key.bundleId), .text(key.offerId), .text(json), .integer(Int64(next.version)),
                  .integer(next.createdAt.milliseconds), .integer(now.milliseconds)])
        let action = existing == nil ? "create" : (existing!.rule.enabled && !rule.enabled ? "disable" : "update")
        try db.query("""
            INSERT INTO offer_changes (bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """, [.text(key.bundleId), .text(key.offerId), .integer(Int64(next.version)), .text(action), .text(actor),
                  .integer(now.milliseconds), .optional(try existing.map { try RuleCoding.encode($0.rule) }), .text(json)])
        return next
    }

    /// Reloads the mirror when `offer_changes` differs from what it reflects, or always when
    /// `force`d (a notification: a change may have committed with an ID below the newest).
    private func refresh(force: Bool) throws {
        try database.read { db in
            let row = try db.query("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM offer_changes")[0]
            let stamp = Stamp(count: row.int64(0), newest: row.int64(1))
            guard force || stamp != mirror.withLock({ $0.stamp }) else { return }
            let offers = try db.query("SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers")
                .map { try RuleCoding.storedOffer($0) }
            let byKey = Dictionary(offers.map { (OfferKey($0.rule), $0) }, uniquingKeysWith: { first, _ in first })
            mirror.withLock { mirror in
                // Changes only grow: a slower refresh must not install an older snapshot.
                guard stamp.count >= mirror.stamp.count else { return }
                mirror.offers = byKey
                mirror.stamp = stamp
            }
        }
    }

    public func changes(bundleId: String?, offerId: String?, afterId: Int64, limit: Int) throws -> [OfferChange] {
        var sql = """
            SELECT id, bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json
            FROM offer_changes WHERE id > $1
            """
        var values: [SQLValue] = [.integer(afterId)]
        if let bundleId {
            values.append(.text(bundleId))
            sql += " AND bundle_id = $\(values.count)"
        }
        if let offerId {
            values.append(.text(offerId))
            sql += " AND offer_id = $\(values.count)"
        }
        values.append(.integer(Int64(max(0, limit))))
        sql += " ORDER BY id LIMIT $\(values.count)"
        return try database.read { db in
            try db.query(sql, values).map { row in
                OfferChange(id: row.int64(0), bundleId: row.text(1), offerId: row.text(2), version: row.int(3), action: row.text(4),
                            apiKeyName: row.text(5), changedAt: Date(milliseconds: row.int64(6)),
                            before: try row.optionalText(7).map(RuleCoding.decode), after: try row.optionalText(8).map(RuleCoding.decode))
            }
        }
    }
}
