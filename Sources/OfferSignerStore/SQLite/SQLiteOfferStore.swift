import Foundation
import OfferSignerCore
import Synchronization

/// Offer rules in SQLite, mirrored in memory so the signing path never reads the disk for
/// them. The mirror is refreshed when another process (the `offers apply` command) changed
/// the rules, checked at most once a second. Every sign request reads the mirror, so it is
/// a `ReadMostly` and the time of the last check an atomic: readers never queue on a lock.
public final class SQLiteOfferStore: OfferStore, Sendable {
    private let database: SQLiteDatabase
    private let mirror = ReadMostly(Mirror())
    /// When the mirror was last checked against the database (`DispatchTime` nanoseconds).
    private let checkedAt = Atomic<UInt64>(0)

    /// The rules in memory and the newest change they reflect.
    private struct Mirror: Sendable {
        var offers: [OfferKey: StoredOffer] = [:]
        var changeId: Int64 = -1
    }

    public init(database: SQLiteDatabase) throws {
        self.database = database
        try refresh(force: true)
    }

    public func offer(bundleId: String, offerId: String) throws -> StoredOffer? {
        try refresh()
        return mirror.read { $0.offers[OfferKey(bundleId: bundleId, offerId: offerId)] }
    }

    public func offers() throws -> [StoredOffer] {
        try refresh()
        return mirror.read { Array($0.offers.values) }.sorted { OfferKey($0.rule) < OfferKey($1.rule) }
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

    /// Runs `body` in one write transaction, then brings the mirror up to date.
    private func change<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let result = try database.write(body)
        try refresh(force: true)
        return result
    }

    /// Applies `update` to one stored rule, recording the change; nil when `update` returns nil.
    /// The row is found and written by `key`, so a rule never moves to another app.
    private static func change(_ key: OfferKey, _ db: SQLiteConnection, by actor: String, at now: Date,
                               _ update: (StoredOffer?) -> OfferRule?) throws -> StoredOffer? {
        let existing = try db.query("""
            SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers WHERE bundle_id = ? AND offer_id = ?
            """, [.text(key.bundleId), .text(key.offerId)], row: { try RuleCoding.storedOffer($0) }).first
        guard let rule = update(existing) else { return nil }
        if let existing, existing.rule == rule { return existing }
        let next = StoredOffer(rule: rule, version: (existing?.version ?? 0) + 1, createdAt: existing?.createdAt ?? now, updatedAt: now)
        let json = try RuleCoding.encode(rule)
        try db.run("""
            INSERT INTO offers (bundle_id, offer_id, rule_json, version, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(bundle_id, offer_id) DO UPDATE SET rule_json = excluded.rule_json,
                version = excluded.version, updated_at_ms = excluded.updated_at_ms
            """, [.text(key.bundleId), .text(key.offerId), .text(json), .integer(Int64(next.version)),
                  .integer(next.createdAt.milliseconds), .integer(now.milliseconds)])
        let action = existing == nil ? "create" : (existing!.rule.enabled && !rule.enabled ? "disable" : "update")
        try db.run("""
            INSERT INTO offer_changes (bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(key.bundleId), .text(key.offerId), .integer(Int64(next.version)), .text(action), .text(actor), .integer(now.milliseconds),
                  .optional(try existing.map { try RuleCoding.encode($0.rule) }), .text(json)])
        return next
    }

    /// Reloads the mirror when the newest change differs from the one it reflects.
    private func refresh(force: Bool = false) throws {
        let now = DispatchTime.now().uptimeNanoseconds
        let last = checkedAt.load(ordering: .relaxed)
        // One caller a second claims the check; the others go on with the mirror as it is.
        guard force || (now >= last + 1_000_000_000
                        && checkedAt.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged) else { return }
        try database.read { db in
            let newest = try db.scalar("SELECT COALESCE(MAX(id), 0) FROM offer_changes") ?? 0
            guard force || newest != mirror.read({ $0.changeId }) else { return }
            let rows = try db.query("SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers", row: { try RuleCoding.storedOffer($0) })
            let offers = Dictionary(rows.map { (OfferKey($0.rule), $0) }, uniquingKeysWith: { first, _ in first })
            mirror.write { mirror in
                // Change IDs only grow: a slower refresh must not install an older snapshot.
                guard newest >= mirror.changeId else { return }
                mirror.offers = offers
                mirror.changeId = newest
            }
        }
    }


    public func changes(bundleId: String?, offerId: String?, afterId: Int64, limit: Int) throws -> [OfferChange] {
        var sql = """
            SELECT id, bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json
            FROM offer_changes WHERE id > ?
            """
        var values: [SQLValue] = [.integer(afterId)]
        if let bundleId {
            sql += " AND bundle_id = ?"
            values.append(.text(bundleId))
        }
        if let offerId {
            sql += " AND offer_id = ?"
            values.append(.text(offerId))
        }
        sql += " ORDER BY id LIMIT ?"
        values.append(.integer(Int64(limit)))
        return try database.read(.audit) { db in
            try db.query(sql, values) { row in
                OfferChange(id: row.int64(0), bundleId: row.text(1), offerId: row.text(2), version: row.int(3), action: row.text(4),
                            apiKeyName: row.text(5), changedAt: Date(milliseconds: row.int64(6)),
                            before: try row.optionalText(7).map(RuleCoding.decode), after: try row.optionalText(8).map(RuleCoding.decode))
            }
        }
    }
}
