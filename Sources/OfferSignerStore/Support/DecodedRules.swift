import OfferSignerCore

/// Rules decoded from their stored JSON, kept by their text: a rule read on every request (a
/// placement, the experiment running on it) is decoded once per text, not once per request
/// (`JSONDecoder` with ISO 8601 dates costs more than the read). The same text always decodes
/// to the same rule, so a hit is exact; at most ``capacity`` texts are kept.
final class DecodedRules: Sendable {
    /// The one cache of the process.
    static let shared = DecodedRules()
    /// Texts kept at most; the cache starts afresh when full.
    static let capacity = 512

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let json: String
    }

    private let rules = PlainMutex<[Key: any Sendable]>([:])

    /// `json` decoded as `type`, from the cache when it holds that text.
    func decode<Rule: ManagedRule>(_ type: Rule.Type, _ json: String) throws -> Rule {
        let key = Key(type: ObjectIdentifier(type), json: json)
        if let hit = rules.withLock({ $0[key] }) as? Rule { return hit }
        let rule = try RuleCoding.decode(type, json)
        rules.withLock { rules in
            if rules.count >= Self.capacity { rules.removeAll(keepingCapacity: true) }
            rules[key] = rule
        }
        return rule
    }
}
