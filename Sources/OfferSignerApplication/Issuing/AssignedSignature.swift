import OfferSignerCore
import OfferSignerStore

/// What signing the offer of a user's experiment arm came to (``SignatureRecorder``).
enum AssignedSignature: Sendable {
    /// Signed: the record and the user's assignment are durable, in one commit;
    /// `newlyAssigned`: that commit inserted the assignment (the user's first).
    case signed(IssuedOffer, newlyAssigned: Bool)
    /// Nothing signed: the user was assigned to another arm meanwhile; `stored` stands.
    case assignedElsewhere(ExperimentAssignment)
}
