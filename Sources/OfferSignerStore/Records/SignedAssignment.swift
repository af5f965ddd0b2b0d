/// A user's experiment assignment recorded in the same commit as the signature of the arm's
/// offer (``SignatureLog/append(_:quota:assigning:)``): a new user's drawn arm, or the
/// recorded assignment of a user signed or found eligible for the first time.
public struct SignedAssignment: Sendable, Hashable {
    /// The user's arm: drawn now (`previous` nil) or the recorded one.
    public var assignment: ExperimentAssignment
    /// The assignment as the request read it; nil when the user had none.
    public var previous: ExperimentAssignment?

    public init(assignment: ExperimentAssignment, previous: ExperimentAssignment?) {
        self.assignment = assignment
        self.previous = previous
    }

    /// Whether the commit must write anything: a new assignment, or a recorded one not yet
    /// marked eligible and signed.
    var needsWrite: Bool {
        guard let previous else { return true }
        return !previous.eligible || previous.firstSignedAt == nil
    }
}
