import Foundation

/// Whether a user may redeem an offer now and, if not, every reason why not.
public struct EligibilityDecision: Codable, Hashable, Sendable {
    /// True exactly when `reasons` is empty.
    public var eligible: Bool
    /// One entry per failed criterion, in the order of the rule's fields.
    public var reasons: [EligibilityReason]

    /// A decision that is eligible when there is no reason against it.
    public init(reasons: [EligibilityReason]) {
        self.eligible = reasons.isEmpty
        self.reasons = reasons
    }
}
