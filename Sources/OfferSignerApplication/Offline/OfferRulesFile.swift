import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer offers apply FILE`: a JSON array of offer rules, validated together and
/// applied as one change set (all or none), so marketing can keep rules in version control.
public struct OfferRulesFile {
    public let rules: [OfferRule]

    /// Reads and validates the file; every fault is named with the rule it is in.
    public init(path: String, configuration: KeyConfiguration) throws(ConfigurationError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(file: path, fault: .unreadableOfferRules)
        }
        let rules: [OfferRule]
        do {
            rules = try JSONCoding.decoder.decodeStrictly([OfferRule].self, from: data)
        } catch {
            throw ConfigurationError(file: path, fault: .malformedOfferRules(DecodingErrorText.describe(error)))
        }
        var faults: [String] = []
        var seen = Set<[String]>()
        for rule in rules {
            // An offer ID is an app's own: the same ID may appear once per app.
            if !seen.insert([rule.bundleId, rule.offerId]).inserted {
                faults.append("offer '\(rule.offerId)' of \(rule.bundleId) appears twice")
            }
            if configuration.apps[rule.bundleId] == nil { faults.append("offer '\(rule.offerId)': no app with bundleId '\(rule.bundleId)' is configured") }
            faults += rule.validationProblems().map { "offer '\(rule.offerId)': \($0)" }
        }
        guard faults.isEmpty else { throw ConfigurationError(file: path, fault: .invalidOfferRules(faults)) }
        self.rules = rules
    }

    /// Applies every rule in one transaction and returns those whose version changed.
    public func apply(to store: any OfferStore, by actor: String, at now: Date) throws -> [StoredOffer] {
        let before = Dictionary(try store.offers().map { ([$0.rule.bundleId, $0.rule.offerId], $0.version) },
                                uniquingKeysWith: { first, _ in first })
        return try store.apply(rules, by: actor, at: now).filter { before[[$0.rule.bundleId, $0.rule.offerId]] != $0.version }
    }
}
