import Foundation
import OfferSignerCore
import OfferSignerStore

/// A change to a rule (an offer's, named by `offerId`, or another kind's, by `ruleId` or its
/// kind's own key, such as `placementId`) as the audit API shows it.
struct RuleChangeDocument<Rule: Encodable>: Encodable {
    let id: Int64
    let bundleId: String
    /// The changed rule's identifier and the key it is written under: `offerId`, `ruleId`, `placementId`, `experimentId`.
    let identifier: (key: Keys, value: String)
    let version: Int
    let action: String
    let apiKeyName: String
    let changedAt: Date
    let before: Rule?
    let after: Rule?

    enum Keys: String, CodingKey { case id, bundleId, offerId, ruleId, placementId, experimentId, version, action, apiKeyName, changedAt, before, after }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(bundleId, forKey: .bundleId)
        try c.encode(identifier.value, forKey: identifier.key)
        try c.encode(version, forKey: .version)
        try c.encode(action, forKey: .action)
        try c.encode(apiKeyName, forKey: .apiKeyName)
        try c.encode(changedAt, forKey: .changedAt)
        try c.encode(before, forKey: .before)
        try c.encode(after, forKey: .after)
    }
}

extension RuleChangeDocument where Rule == OfferRule {
    init(_ change: OfferChange) {
        self.init(id: change.id, bundleId: change.bundleId, identifier: (.offerId, change.offerId), version: change.version, action: change.action,
                  apiKeyName: change.apiKeyName, changedAt: change.changedAt, before: change.before, after: change.after)
    }
}

extension RuleChangeDocument where Rule: ManagedRule {
    init(_ change: RuleChange<Rule>) {
        self.init(id: change.id, bundleId: change.bundleId, identifier: (Keys(rawValue: Rule.identifierKey) ?? .ruleId, change.ruleId), version: change.version, action: change.action,
                  apiKeyName: change.apiKeyName, changedAt: change.changedAt, before: change.before, after: change.after)
    }
}
