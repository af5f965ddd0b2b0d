import Foundation
import OfferSignerCore

/// The append-only, hash-chained log of every issued signature.
public protocol SignatureLog: Sendable {
    /// Appends `record` and returns only once it is durably committed. With a `quota`, the
    /// append is refused (`quotaExceeded`) when the user already has that many signatures of
    /// the offer (the record's app and offer ID) in the quota's window, checked inside the same transaction, so concurrent
    /// requests cannot overrun it.
    func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature

    /// Appends every one of `records` in one commit (no quota) and returns only once all of
    /// them are durably committed, in order; when any cannot be appended the error is thrown
    /// and none of them may be handed out.
    func append(all records: [SignatureRecord]) throws(SignatureLogError) -> [LoggedSignature]

    /// Appends `record` as ``append(_:quota:)`` does and, in the same commit, records the
    /// user's experiment assignment (`experiment_assignments`): a new user's arm once (a first
    /// assignment already committed by another request stands: when its arm differs, nothing
    /// is appended and the stored assignment is returned), marked eligible and signed at the
    /// record's timestamp. When the quota refuses the record, the assignment is still
    /// recorded, eligible and not signed (intention to treat), and `quotaExceeded` is thrown.
    func append(_ record: SignatureRecord, quota: SignatureQuota?,
                assigning assignment: SignedAssignment) throws(SignatureLogError) -> AssignedAppend

    /// The record with this nonce.
    func signature(nonce: String) throws -> LoggedSignature?

    /// Records matching `filter` with sequence above `afterSequence`, oldest first.
    func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature]

    /// Walks the whole chain (records and accepted gaps) and reports the first entry that
    /// does not link, does not match a checkpoint of `options`, or fails its record check.
    func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport

    /// Whether the log can be read and written now. After an append failed (disk full, the
    /// chain's end not matching its recorded end) it is not ready until a write succeeds again.
    func readiness() -> SignatureLogReadiness

    /// The chain's end as this process last committed it (or found it when opening the log).
    func committedEnd() -> ChainLink
}

extension SignatureLog {
    /// `verifyIntegrity` of the hash chain alone.
    public func verifyIntegrity() throws -> IntegrityReport {
        try verifyIntegrity(IntegrityOptions())
    }
}
