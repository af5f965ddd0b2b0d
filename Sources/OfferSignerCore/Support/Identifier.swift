/// The identifiers the service accepts (product, offer, bundle, key, transaction IDs and
/// API key names): visible ASCII only, so none can carry U+2063, the separator of Apple's
/// signed payload.
public enum Identifier {
    /// 1 to `maxLength` visible ASCII characters.
    public static func isValid(_ text: String, maxLength: Int = 256) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }

    /// An identifier that names a rule in the admin API's paths (offer IDs, rule IDs): as
    /// ``isValid(_:maxLength:)`` without `/`, which no URL can carry inside one path segment.
    /// The same rule holds whichever way a rule comes in (API, console, `offers apply`).
    public static func isValidRuleId(_ text: String) -> Bool {
        isValid(text) && !text.utf8.contains(UInt8(ascii: "/"))
    }

    /// What ``isValidRuleId(_:)`` requires, for refusals.
    public static let ruleIdRequirement = "1–256 visible ASCII characters other than /"
}
