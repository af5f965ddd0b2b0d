import Foundation
import OfferSignerCore

/// Retention and introductory-offer rules (`managed_rules`, `managed_rule_changes`). Reads go
/// to the database each time (a rule set is a handful of rows read by primary key), so on
/// PostgreSQL a rule changed through one instance is in force on every instance at once; a
/// change takes the rule-change lock, so two instances changing one rule at once make two
/// versions, not one twice.
final class SQLRuleStore<Database: SQLDatabase>: RuleStore, Sendable {
    private let database: Database

    init(database: Database) { self.database = database }

    public func rule<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String) throws -> StoredRule<Rule>? {
        try database.withReader { db in try Self.stored(type, bundleId: bundleId, ruleId: ruleId, db) }
    }

    public func rules<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?) throws -> [StoredRule<Rule>] {
        var conditions = SQLConditions()
        conditions.add("kind", equals: Rule.kind)
        conditions.add("bundle_id", equals: bundleId)
        let sql = "SELECT \(RuleCoding.managedRuleColumns) FROM managed_rules WHERE \(conditions.sql) ORDER BY bundle_id, rule_id"
        return try database.withReader { db in try db.select(sql, conditions.values) { try RuleCoding.storedRule(type, $0) } }
    }

    public func put<Rule: ManagedRule>(_ rule: Rule, by actor: String, at now: Date) throws -> StoredRule<Rule> {
        defer { ManagedRuleChanges.committed() }
        return try database.inTransaction { db in
            try Self.change(Rule.self, bundleId: rule.bundleId, ruleId: rule.ruleId, db, by: actor, at: now) { _ in rule }!
        }
    }

    public func disable<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String, by actor: String,
                                           at now: Date) throws -> StoredRule<Rule>? {
        defer { ManagedRuleChanges.committed() }
        return try database.inTransaction { db in
            try Self.change(type, bundleId: bundleId, ruleId: ruleId, db, by: actor, at: now) { existing in
                guard var rule = existing?.rule else { return nil }
                rule.enabled = false
                return rule
            }
        }
    }

    public func changes<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?, ruleId: String?, afterId: Int64,
                                           limit: Int) throws -> [RuleChange<Rule>] {
        var conditions = SQLConditions()
        conditions.add("kind", equals: Rule.kind)
        conditions.add("id > ?", .integer(afterId))
        conditions.add("bundle_id", equals: bundleId)
        conditions.add("rule_id", equals: ruleId)
        let sql = "SELECT \(RuleCoding.managedRuleChangeColumns) FROM managed_rule_changes WHERE \(conditions.sql) ORDER BY id LIMIT ?"
        return try database.withReader { db in
            try db.select(sql, conditions.values + [.limit(limit)]) { try RuleCoding.ruleChange(type, $0) }
        }
    }

    /// Applies `update` to one stored rule under the change lock, recording the change and
    /// announcing it to the other instances on commit (``SQLPlacementMirror``); nil when
    /// `update` returns nil. The caller calls ``ManagedRuleChanges/committed()`` after the commit.
    static func change<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String, _ db: Database.Connection,
                                                  by actor: String, at now: Date,
                                                  _ update: (StoredRule<Rule>?) -> Rule?) throws -> StoredRule<Rule>? {
        try db.lockForChanges(SQLChangeLock.rules)
        let existing = try stored(type, bundleId: bundleId, ruleId: ruleId, db)
        guard let rule = update(existing) else { return nil }
        guard let (next, action) = RuleCoding.nextVersion(of: existing, becoming: rule, at: now) else { return existing }
        let json = try RuleCoding.encode(rule)
        try db.change("""
            INSERT INTO managed_rules (kind, bundle_id, rule_id, rule_json, version, created_at_ms, updated_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (kind, bundle_id, rule_id) DO UPDATE SET rule_json = excluded.rule_json,
                version = excluded.version, updated_at_ms = excluded.updated_at_ms
            """, [.text(Rule.kind), .text(bundleId), .text(ruleId), .text(json), .integer(Int64(next.version)),
                  .integer(next.createdAt.milliseconds), .integer(now.milliseconds)])
        try db.change("""
            INSERT INTO managed_rule_changes (kind, bundle_id, rule_id, version, action, api_key_name, changed_at_ms,
                before_json, after_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(Rule.kind), .text(bundleId), .text(ruleId), .integer(Int64(next.version)), .text(action), .text(actor),
                  .integer(now.milliseconds), .optional(try existing.map { try RuleCoding.encode($0.rule) }), .text(json)])
        try db.announceChange(on: SQLPlacementMirror<Database>.channel)
        return next
    }

    static func stored<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String,
                                                  _ db: Database.Connection) throws -> StoredRule<Rule>? {
        try db.first("""
            SELECT \(RuleCoding.managedRuleColumns) FROM managed_rules WHERE kind = ? AND bundle_id = ? AND rule_id = ?
            """, [.text(Rule.kind), .text(bundleId), .text(ruleId)]) { try RuleCoding.storedRule(type, $0) }
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteRuleStore = SQLRuleStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLRuleStore = SQLRuleStore<PostgreSQLDatabase>
