import OfferSignerCore

/// What ``SignatureLog/append(_:quota:assigning:)`` did.
public enum AssignedAppend: Sendable {
    /// The record is durably appended and the assignment recorded with it, eligible and signed;
    /// `newlyAssigned`: the commit inserted the assignment (the user's first), rather than
    /// finding it recorded.
    case appended(LoggedSignature, newlyAssigned: Bool)
    /// Nothing was appended: the user was assigned to another arm meanwhile (another request
    /// of theirs drawn under other weights committed first). `stored` is the assignment that
    /// stands; the request must follow it.
    case assignedElsewhere(stored: ExperimentAssignment)
}
