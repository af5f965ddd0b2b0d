/// A user's experiment assignment recorded in the same commit as the signature of the arm's
/// offer (``SignatureLog/append(_:quota:assigning:)``): a new user's drawn arm, or the
/// recorded assignment of a user signed or found eligible for the first time.
public struct SignedAssignment: Sendable, Hashable {
    /// The user's arm: drawn now (`previous` nil) or the recorded one.
    public var assignment: ExperimentAssignment
    /// The assignment as the request read it; nil when the user had none or it was not read.
    public var previous: ExperimentAssignment?
    /// Whether the request read the user's assignment. When not (`previous` nil), the commit
    /// reads it before inserting the drawn one: a user found assigned to the drawn arm is
    /// marked as a recorded one is, one found assigned to another arm gets nothing appended.
    public var previousRead: Bool

    public init(assignment: ExperimentAssignment, previous: ExperimentAssignment?, previousRead: Bool = true) {
        self.assignment = assignment
        self.previous = previous
        self.previousRead = previousRead
    }

    /// Whether the commit must write anything: a new assignment, or one not read, or a
    /// recorded one not yet marked eligible and signed.
    var needsWrite: Bool {
        guard let previous else { return true }
        return !previous.eligible || previous.firstSignedAt == nil
    }
}
