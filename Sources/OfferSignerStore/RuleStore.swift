import Foundation
import OfferSignerCore

/// Rules marketing manages besides offers (retention rules, introductory-offer rules: any
/// ``ManagedRule``), versioned, with every change recorded. A rule is known by its kind, its
/// app's bundle ID and its rule ID; two apps may each have a rule of the same ID.
///
/// Kept apart from ``OfferStore`` so that another backend implements it on its own: rules are
/// stored as their JSON, with the kind, app and ID beside it.
public protocol RuleStore: Sendable {
    /// The rule `ruleId` of kind `type` in the app `bundleId`, enabled or not.
    func rule<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String) throws -> StoredRule<Rule>?
    /// Every rule of kind `type` (of one app when `bundleId` is given), by app, then rule ID.
    func rules<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?) throws -> [StoredRule<Rule>]
    /// Creates or replaces the rule (`rule.bundleId`, `rule.ruleId`) and records the change in
    /// the same transaction. A rule identical to the stored one changes nothing.
    func put<Rule: ManagedRule>(_ rule: Rule, by actor: String, at now: Date) throws -> StoredRule<Rule>
    /// Disables the rule (keeping it and its history); nil if there is no such rule.
    func disable<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String, by actor: String,
                                    at now: Date) throws -> StoredRule<Rule>?
    /// Changes to rules of kind `type`, oldest first, after the change with ID `afterId`, of
    /// one app when `bundleId` is given, of rules of that ID when `ruleId` is.
    func changes<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?, ruleId: String?, afterId: Int64,
                                    limit: Int) throws -> [RuleChange<Rule>]
}

/// A rule with its bookkeeping.
public struct StoredRule<Rule: ManagedRule>: Sendable, Hashable {
    public var rule: Rule
    /// 1 on creation, then +1 on every change.
    public var version: Int
    public var createdAt: Date
    public var updatedAt: Date
}

/// One change to a rule: who, when, before and after.
public struct RuleChange<Rule: ManagedRule>: Sendable, Hashable {
    public var id: Int64
    public var bundleId: String
    public var ruleId: String
    public var version: Int
    /// `create`, `update` or `disable`.
    public var action: String
    public var apiKeyName: String
    public var changedAt: Date
    public var before: Rule?
    public var after: Rule?
}
