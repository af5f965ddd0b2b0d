import OfferSignerCore
import OfferSignerStore

/// What signing the offer of a user's experiment arm came to (``SignatureRecorder``).
enum AssignedSignature: Sendable {
    /// Signed: the record and the user's assignment are durable, in one commit.
    case signed(IssuedOffer)
    /// Nothing signed: the user was assigned to another arm meanwhile; `stored` stands.
    case assignedElsewhere(ExperimentAssignment)
}
