import Foundation

extension RetentionRule {
    /// Every reason the rule cannot be right, as sentences naming the field; empty when valid.
    /// (That `offerId` names an offer of the app is checked where the offers are known.)
    public func validationProblems() -> [String] {
        var problems: [String] = []
        if !Identifier.isValidRuleId(ruleId) { problems.append("'ruleId' must be \(Identifier.ruleIdRequirement)") }
        if !Identifier.isValid(bundleId) { problems.append("'bundleId' must be 1–256 visible ASCII characters") }
        RuleChecks.identifiers("productIds", productIds, into: &problems)
        if let locales {
            if locales.isEmpty { problems.append("'locales' must not be empty (leave it out to apply to every locale)") }
            for locale in locales where !Self.isLocale(locale) {
                problems.append("'locales' entry '\(locale)' is not a locale such as en or en-US")
            }
        }
        for (name, value) in [("messageIdentifier", messageIdentifier), ("fallbackMessageIdentifier", fallbackMessageIdentifier)] {
            if let value, UUID(uuidString: value) == nil {
                problems.append("'\(name)' must be the UUID of a retention message")
            }
        }
        if let alternateProductId, !Identifier.isValid(alternateProductId) {
            problems.append("'alternateProductId' must be 1–256 visible ASCII characters")
        }
        if let offerId, !Identifier.isValidRuleId(offerId) {
            problems.append("'offerId' must be \(Identifier.ruleIdRequirement)")
        }
        if alternateProductId != nil, offerId != nil {
            problems.append("'alternateProductId' and 'offerId' exclude each other: a retention message suggests a plan or an offer")
        }
        if fallbackMessageIdentifier != nil, offerId == nil {
            problems.append("'fallbackMessageIdentifier' applies only with 'offerId'")
        }
        return problems
    }

    /// A language (2–3 letters) with optional subtags of 1–8 letters or digits, `-` or `_` between.
    static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let language = parts.first, (2...3).contains(language.count),
              language.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        }
    }
}
