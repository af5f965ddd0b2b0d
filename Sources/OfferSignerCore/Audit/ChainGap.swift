import Foundation

/// An accepted gap: the chain entry an operator writes when records were cut off the end of
/// the signature log and cannot be restored. It stands in the chain like a record, links to
/// the last record that was kept, and names what was lost, who accepted the loss, when and
/// why; every later record links to it, so it cannot be removed without breaking the chain,
/// and every integrity report lists it.
public struct ChainGap: Hashable, Sendable {
    /// Its own place in the chain: one past the last sequence that was lost.
    public var sequence: Int64
    /// The last entry kept; the gap links to it.
    public var resumedAfter: ChainLink
    /// The end the log had recorded before the loss, or nil when that record was lost too
    /// (and no checkpoint told it).
    public var lostThrough: ChainLink?
    /// Who accepted the loss (`cli:$USER`).
    public var acceptedBy: String
    /// The operator's account of what happened.
    public var reason: String
    /// When, milliseconds since 1970.
    public var acceptedAt: Int64
    /// SHA-256 over the previous entry's hash and every field above.
    public var hash: String

    /// A gap at `sequence` with its hash computed.
    public init(sequence: Int64, resumedAfter: ChainLink, lostThrough: ChainLink?, acceptedBy: String, reason: String, acceptedAt: Int64) {
        self.init(sequence: sequence, resumedAfter: resumedAfter, lostThrough: lostThrough, acceptedBy: acceptedBy, reason: reason,
                  acceptedAt: acceptedAt, hash: "")
        hash = computedHash
    }

    /// A gap as stored, with the hash it was stored with.
    public init(sequence: Int64, resumedAfter: ChainLink, lostThrough: ChainLink?, acceptedBy: String, reason: String,
                acceptedAt: Int64, hash: String) {
        self.sequence = sequence
        self.resumedAfter = resumedAfter
        self.lostThrough = lostThrough
        self.acceptedBy = acceptedBy
        self.reason = reason
        self.acceptedAt = acceptedAt
        self.hash = hash
    }

    /// The first sequence lost.
    public var lostFrom: Int64 { resumedAfter.sequence + 1 }

    /// The hash the gap's fields give; differs from `hash` when the stored gap was changed.
    public var computedHash: String {
        SignatureChain.hash(fields: [
            "offer-signer.gap.v1", resumedAfter.hash, String(sequence), String(resumedAfter.sequence),
            lostThrough.map { String($0.sequence) }, lostThrough?.hash, acceptedBy, reason, String(acceptedAt),
        ])
    }

    /// What the gap says, in a sentence for reports.
    public var summary: String {
        let lost = lostThrough.map { $0.sequence >= lostFrom ? "records \(lostFrom)–\($0.sequence) were lost" : "no record was lost" }
            ?? "records from \(lostFrom) on were lost (how many is unknown: the recorded end was lost too)"
        return "\(lost); accepted by \(acceptedBy) at \(RFC3339.string(from: Date(milliseconds: acceptedAt))): \(reason)"
    }
}
