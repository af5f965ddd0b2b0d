import Foundation
import OfferSignerCore

/// How rules are kept at rest: JSON with sorted keys and ISO 8601 dates; and the rows of the
/// rule tables decoded, the same for both engines.
enum RuleCoding {
    static func encode<Rule: Encodable>(_ rule: Rule) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(rule), as: UTF8.self)
    }

    static func decode<Rule: Decodable>(_ type: Rule.Type, _ json: String) throws -> Rule {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(json.utf8))
    }

    static func decode(_ json: String) throws -> OfferRule {
        try decode(OfferRule.self, json)
    }

    /// A row of `rule_json, version, created_at_ms, updated_at_ms`.
    static func storedOffer(_ row: some StoreRow) throws -> StoredOffer {
        StoredOffer(rule: try decode(row.text(0)), version: row.int(1),
                    createdAt: Date(milliseconds: row.int64(2)), updatedAt: Date(milliseconds: row.int64(3)))
    }

    /// The columns ``storedRule(_:_:)`` reads from `managed_rules`.
    static let managedRuleColumns = "rule_json, version, created_at_ms, updated_at_ms"

    /// A row of ``managedRuleColumns``.
    static func storedRule<Rule: ManagedRule>(_ type: Rule.Type, _ row: some StoreRow) throws -> StoredRule<Rule> {
        StoredRule(rule: try DecodedRules.shared.decode(type, row.text(0)), version: row.int(1), createdAt: Date(milliseconds: row.int64(2)),
                   updatedAt: Date(milliseconds: row.int64(3)))
    }

    /// The columns ``ruleChange(_:_:)`` reads from `managed_rule_changes`.
    static let managedRuleChangeColumns = "id, bundle_id, rule_id, version, action, api_key_name, changed_at_ms, before_json, after_json"

    /// A row of ``managedRuleChangeColumns``.
    static func ruleChange<Rule: ManagedRule>(_ type: Rule.Type, _ row: some StoreRow) throws -> RuleChange<Rule> {
        RuleChange(id: row.int64(0), bundleId: row.text(1), ruleId: row.text(2), version: row.int(3), action: row.text(4),
                   apiKeyName: row.text(5), changedAt: Date(milliseconds: row.int64(6)),
                   before: try row.optionalText(7).map { try decode(type, $0) },
                   after: try row.optionalText(8).map { try decode(type, $0) })
    }

    /// What storing `rule` over `existing` makes: the next version and the change's action
    /// (`create`, `update` or `disable`); nil when the rule is identical to the stored one.
    static func nextVersion<Rule: ManagedRule>(of existing: StoredRule<Rule>?, becoming rule: Rule,
                                               at now: Date) -> (stored: StoredRule<Rule>, action: String)? {
        if let existing, existing.rule == rule { return nil }
        let next = StoredRule(rule: rule, version: (existing?.version ?? 0) + 1, createdAt: existing?.createdAt ?? now, updatedAt: now)
        let action = existing == nil ? "create" : (existing!.rule.enabled && !rule.enabled ? "disable" : "update")
        return (next, action)
    }
}
