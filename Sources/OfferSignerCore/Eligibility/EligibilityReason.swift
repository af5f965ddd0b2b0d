import Foundation

/// One criterion of an offer rule that a user failed.
///
/// `required` and `actual` describe the same quantity: what the rule asks of it and what
/// the user has (for `excludeRefunded`, refunded `false` against `true`; for `startsAt`
/// and `endsAt`, the boundary against the time of the decision).
public struct EligibilityReason: Codable, Hashable, Sendable {
    /// The name of the rule's field that failed: `enabled`, `startsAt`, `endsAt`, or a
    /// field of `eligibility` such as `minPaidDays`.
    public var criterion: String
    public var required: JSONValue
    /// What the user has; `null` when it is not known (an unknown user's storefront).
    public var actual: JSONValue
    /// A sentence for people, such as "Paid 95 days; this offer needs at least 180."
    public var message: String
}

extension EligibilityReason {
    /// The reason every offer fails for a customer who withdrew consent for the app at `date`
    /// (Apple's app transaction `appTransactionId`).
    public static func consentRescinded(at date: Date, appTransactionId: String) -> EligibilityReason {
        EligibilityReason(criterion: "consentRescinded", required: .bool(false), actual: .bool(true),
                          message: "Consent for this customer's use of the app was withdrawn on \(RFC3339.string(from: date)) "
                            + "(app transaction \(appTransactionId)); no offer is signed for them.")
    }
}
