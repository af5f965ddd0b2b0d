import Foundation
import OfferSignerCore

/// The statements of the offer stores, written once: each engine's store keeps its rules
/// mirrored in memory and follows changes its own way (SQLite polls, PostgreSQL listens), and
/// changes and reads them through these.
enum SQLOffers {
    /// How many changes there are and the newest's ID: a change committed late with a lower ID
    /// still changes the count. A mirror is reloaded when the stamp differs.
    struct Stamp: Equatable, Sendable {
        let count: Int64
        let newest: Int64

        static let none = Stamp(count: -1, newest: -1)
    }

    /// Creates or replaces `rules` as one change set; call in a transaction.
    static func apply(_ rules: [OfferRule], _ db: any SQLConnection, by actor: String, at now: Date) throws -> [StoredOffer] {
        try rules.map { rule in try change(OfferKey(rule), db, by: actor, at: now) { _ in rule }! }
    }

    /// Disables the offer `key`; nil when there is none. Call in a transaction.
    static func disable(_ key: OfferKey, _ db: any SQLConnection, by actor: String, at now: Date) throws -> StoredOffer? {
        try change(key, db, by: actor, at: now) { existing in
            guard var rule = existing?.rule else { return nil }
            rule.enabled = false
            return rule
        }
    }

    /// Applies `update` to one stored rule, recording the change; nil when `update` returns nil.
    /// The row is found and written by `key`, so a rule never moves to another app.
    private static func change(_ key: OfferKey, _ db: any SQLConnection, by actor: String, at now: Date,
                               _ update: (StoredOffer?) -> OfferRule?) throws -> StoredOffer? {
        let existing = try db.first("""
            SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers WHERE bundle_id = ? AND offer_id = ?
            """, [.text(key.bundleId), .text(key.offerId)]) { try RuleCoding.storedOffer($0) }
        guard let rule = update(existing) else { return nil }
        if let existing, existing.rule == rule { return existing }
        let next = StoredOffer(rule: rule, version: (existing?.version ?? 0) + 1, createdAt: existing?.createdAt ?? now, updatedAt: now)
        let json = try RuleCoding.encode(rule)
        try db.change("""
            INSERT INTO offers (bundle_id, offer_id, rule_json, version, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (bundle_id, offer_id) DO UPDATE SET rule_json = excluded.rule_json,
                version = excluded.version, updated_at_ms = excluded.updated_at_ms
            """, [.text(key.bundleId), .text(key.offerId), .text(json), .integer(Int64(next.version)),
                  .integer(next.createdAt.milliseconds), .integer(now.milliseconds)])
        let action = existing == nil ? "create" : (existing!.rule.enabled && !rule.enabled ? "disable" : "update")
        try db.change("""
            INSERT INTO offer_changes (bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(key.bundleId), .text(key.offerId), .integer(Int64(next.version)), .text(action), .text(actor),
                  .integer(now.milliseconds), .optional(try existing.map { try RuleCoding.encode($0.rule) }), .text(json)])
        return next
    }

    /// The state of `offer_changes`.
    static func stamp(_ db: any SQLConnection) throws -> Stamp {
        try db.first("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM offer_changes") { Stamp(count: $0.int64(0), newest: $0.int64(1)) } ?? .none
    }

    /// Every offer, by key.
    static func offers(_ db: any SQLConnection) throws -> [OfferKey: StoredOffer] {
        let rows = try db.select("SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers") { try RuleCoding.storedOffer($0) }
        return Dictionary(rows.map { (OfferKey($0.rule), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// ``OfferStore/changes(bundleId:offerId:afterId:limit:)``, read on the audit lane.
    static func changes(_ database: any SQLDatabase, bundleId: String?, offerId: String?, afterId: Int64,
                        limit: Int) throws -> [OfferChange] {
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
        values.append(.integer(Int64(max(0, limit))))
        return try database.withReader(.audit) { db in
            try db.select(sql, values) { row in
                OfferChange(id: row.int64(0), bundleId: row.text(1), offerId: row.text(2), version: row.int(3), action: row.text(4),
                            apiKeyName: row.text(5), changedAt: Date(milliseconds: row.int64(6)),
                            before: try row.optionalText(7).map(RuleCoding.decode), after: try row.optionalText(8).map(RuleCoding.decode))
            }
        }
    }
}
