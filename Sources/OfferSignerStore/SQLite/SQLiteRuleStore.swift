import Foundation
import OfferSignerCore

/// Retention and introductory-offer rules in SQLite (`managed_rules`, `managed_rule_changes`).
/// Reads go to the file each time: a rule set is a handful of rows read by primary key.
public final class SQLiteRuleStore: RuleStore, Sendable {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func rule<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String) throws -> StoredRule<Rule>? {
        try database.read { db in try Self.stored(type, bundleId: bundleId, ruleId: ruleId, db) }
    }

    public func rules<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?) throws -> [StoredRule<Rule>] {
        var sql = "SELECT rule_json, version, created_at_ms, updated_at_ms FROM managed_rules WHERE kind = ?"
        var values: [SQLiteValue] = [.text(Rule.kind)]
        if let bundleId {
            sql += " AND bundle_id = ?"
            values.append(.text(bundleId))
        }
        sql += " ORDER BY bundle_id, rule_id"
        return try database.read { db in try db.query(sql, values) { try Self.storedRule(type, $0) } }
    }

    public func put<Rule: ManagedRule>(_ rule: Rule, by actor: String, at now: Date) throws -> StoredRule<Rule> {
        try database.write { db in
            try Self.change(Rule.self, bundleId: rule.bundleId, ruleId: rule.ruleId, db, by: actor, at: now) { _ in rule }!
        }
    }

    public func disable<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String, by actor: String,
                                           at now: Date) throws -> StoredRule<Rule>? {
        try database.write { db in
            try Self.change(type, bundleId: bundleId, ruleId: ruleId, db, by: actor, at: now) { existing in
                guard var rule = existing?.rule else { return nil }
                rule.enabled = false
                return rule
            }
        }
    }

    public func changes<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?, ruleId: String?, afterId: Int64,
                                           limit: Int) throws -> [RuleChange<Rule>] {
        var sql = """
            SELECT id, bundle_id, rule_id, version, action, api_key_name, changed_at_ms, before_json, after_json
            FROM managed_rule_changes WHERE kind = ? AND id > ?
            """
        var values: [SQLiteValue] = [.text(Rule.kind), .integer(afterId)]
        if let bundleId {
            sql += " AND bundle_id = ?"
            values.append(.text(bundleId))
        }
        if let ruleId {
            sql += " AND rule_id = ?"
            values.append(.text(ruleId))
        }
        sql += " ORDER BY id LIMIT ?"
        values.append(.integer(Int64(limit)))
        return try database.read { db in
            try db.query(sql, values) { row in
                RuleChange(id: row.int64(0), bundleId: row.text(1), ruleId: row.text(2), version: row.int(3), action: row.text(4),
                           apiKeyName: row.text(5), changedAt: Date(milliseconds: row.int64(6)),
                           before: try row.optionalText(7).map { try Self.decode(type, $0) },
                           after: try row.optionalText(8).map { try Self.decode(type, $0) })
            }
        }
    }

    /// Applies `update` to one stored rule, recording the change; nil when `update` returns nil.
    private static func change<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String, _ db: SQLiteConnection,
                                                  by actor: String, at now: Date,
                                                  _ update: (StoredRule<Rule>?) -> Rule?) throws -> StoredRule<Rule>? {
        let existing = try stored(type, bundleId: bundleId, ruleId: ruleId, db)
        guard let rule = update(existing) else { return nil }
        if let existing, existing.rule == rule { return existing }
        let next = StoredRule(rule: rule, version: (existing?.version ?? 0) + 1, createdAt: existing?.createdAt ?? now, updatedAt: now)
        let json = try encode(rule)
        try db.run("""
            INSERT INTO managed_rules (kind, bundle_id, rule_id, rule_json, version, created_at_ms, updated_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(kind, bundle_id, rule_id) DO UPDATE SET rule_json = excluded.rule_json,
                version = excluded.version, updated_at_ms = excluded.updated_at_ms
            """, [.text(Rule.kind), .text(bundleId), .text(ruleId), .text(json), .integer(Int64(next.version)),
                  .integer(next.createdAt.milliseconds), .integer(now.milliseconds)])
        let action = existing == nil ? "create" : (existing!.rule.enabled && !rule.enabled ? "disable" : "update")
        try db.run("""
            INSERT INTO managed_rule_changes (kind, bundle_id, rule_id, version, action, api_key_name, changed_at_ms,
                before_json, after_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(Rule.kind), .text(bundleId), .text(ruleId), .integer(Int64(next.version)), .text(action), .text(actor),
                  .integer(now.milliseconds), .optional(try existing.map { try encode($0.rule) }), .text(json)])
        return next
    }

    private static func stored<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String,
                                                  _ db: SQLiteConnection) throws -> StoredRule<Rule>? {
        try db.query("""
            SELECT rule_json, version, created_at_ms, updated_at_ms FROM managed_rules
            WHERE kind = ? AND bundle_id = ? AND rule_id = ?
            """, [.text(Rule.kind), .text(bundleId), .text(ruleId)]) { try storedRule(type, $0) }.first
    }

    private static func storedRule<Rule: ManagedRule>(_ type: Rule.Type, _ row: SQLiteRow) throws -> StoredRule<Rule> {
        StoredRule(rule: try decode(type, row.text(0)), version: row.int(1), createdAt: Date(milliseconds: row.int64(2)),
                   updatedAt: Date(milliseconds: row.int64(3)))
    }

    /// Rules at rest: JSON with sorted keys and ISO 8601 dates, as offer rules are kept.
    private static func encode<Rule: ManagedRule>(_ rule: Rule) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(rule), as: UTF8.self)
    }

    private static func decode<Rule: ManagedRule>(_ type: Rule.Type, _ json: String) throws -> Rule {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(json.utf8))
    }
}
