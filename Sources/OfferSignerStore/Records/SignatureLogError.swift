/// Why an append did not happen.
public enum SignatureLogError: Error, CustomStringConvertible, Sendable {
    /// The quota is used up; a slot frees in `retryAfterSeconds`.
    case quotaExceeded(retryAfterSeconds: Int)
    /// The record could not be durably written (disk full, database error, shutting down).
    case unavailable(String)
    /// The log does not end where its last commit said it ends (records cut off its end, the
    /// recorded end deleted or changed): nothing is appended until an operator acts.
    case endMismatch(ChainEndMismatch)

    public var description: String {
        switch self {
        case .quotaExceeded(let seconds): "signature quota used up; retry in \(seconds) s"
        case .unavailable(let reason): "the signature log cannot be written: \(reason)"
        case .endMismatch(let mismatch) where mismatch.isTruncation:
            "the signature log went backwards (chain_regressed) and takes no appends until the loss is accepted: \(mismatch)"
        case .endMismatch(let mismatch): "the signature log was tampered with and takes no appends: \(mismatch)"
        }
    }
}
