import Foundation
import OfferSignerCore
import OfferSignerStore

/// A rule (an offer's, or another kind's) as the admin API returns it: the rule with `createdAt`,
/// `updatedAt`, `version`.
struct RuleDocument<Rule: Encodable>: Encodable {
    let rule: Rule
    let version: Int
    let createdAt: Date
    let updatedAt: Date
    /// Said when a rule is saved, only when there is something to say.
    var warnings: [String] = []

    enum Keys: String, CodingKey { case createdAt, updatedAt, version, warnings }

    func encode(to encoder: any Encoder) throws {
        try rule.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(version, forKey: .version)
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
    }
}

extension RuleDocument where Rule == OfferRule {
    init(_ offer: StoredOffer) {
        self.init(rule: offer.rule, version: offer.version, createdAt: offer.createdAt, updatedAt: offer.updatedAt)
    }
}

extension RuleDocument where Rule: ManagedRule {
    init(_ stored: StoredRule<Rule>, warnings: [String] = []) {
        self.init(rule: stored.rule, version: stored.version, createdAt: stored.createdAt, updatedAt: stored.updatedAt, warnings: warnings)
    }
}
