/// A rule marketing manages through the admin API besides offer rules (retention rules,
/// introductory-offer rules): known by its app and its ID, versioned, with every change
/// recorded, and disabled rather than deleted.
public protocol ManagedRule: Codable, Hashable, Sendable {
    /// What kind of rule this is, as the store and the change history name it
    /// (`retention`, `introductory-offer`).
    static var kind: String { get }
    /// The key the rule's ID is written under (`ruleId` unless the kind names it otherwise).
    static var identifierKey: String { get }
    /// The key a list of these rules is written under (`rules`, `placements`).
    static var collectionKey: String { get }
    /// The rule's ID, chosen by marketing; unique within the app and kind.
    var ruleId: String { get }
    /// The app the rule belongs to.
    var bundleId: String { get }
    var enabled: Bool { get set }
    /// Higher numbers are tried first.
    var priority: Int { get }
    /// Every reason the rule cannot be right, as sentences naming the field; empty when valid.
    func validationProblems() -> [String]
}

extension ManagedRule {
    /// The key the rule's ID is written under, in its JSON, its routes and its change history.
    public static var identifierKey: String { "ruleId" }
    /// The key a list of these rules is written under (`rules` unless the kind names it otherwise).
    public static var collectionKey: String { "rules" }

    /// Rules in the order they are tried: highest `priority` first, then by `ruleId`.
    public static func inPriorityOrder(_ rules: [Self]) -> [Self] {
        rules.sorted { ($0.priority, $1.ruleId) > ($1.priority, $0.ruleId) }
    }
}

/// The checks rules share.
enum RuleChecks {
    /// A list that, when given, must name at least one valid identifier, none twice.
    static func identifiers(_ name: String, _ values: [String]?, into problems: inout [String]) {
        guard let values else { return }
        if values.isEmpty { problems.append("'\(name)' must not be empty (leave it out to apply to every one)") }
        for (index, value) in values.enumerated() where !Identifier.isValid(value) {
            problems.append("'\(name)[\(index)]' must be 1–256 visible ASCII characters")
        }
        if Set(values).count != values.count { problems.append("'\(name)' lists a value twice") }
    }

    /// ISO 3166-1 alpha-3 storefront codes, as offer rules take them.
    static func storefronts(_ name: String, _ values: [String]?, into problems: inout [String]) {
        guard let values else { return }
        if values.isEmpty { problems.append("'\(name)' must not be empty (leave it out to allow every storefront)") }
        for code in values where !(code.utf8.count == 3 && code.utf8.allSatisfy { (0x41...0x5a).contains($0) }) {
            problems.append("'\(name)' entry '\(code)' is not an ISO 3166-1 alpha-3 code such as USA")
        }
    }
}
