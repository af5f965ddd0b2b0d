/// A record as it stands in the log: its position and its link in the hash chain.
public struct LoggedSignature: Hashable, Sendable {
    /// 1 for the first record, then consecutive.
    public var sequence: Int64
    public var record: SignatureRecord
    /// The hash of the record before (64 zeros for the first).
    public var previousHash: String
    public var hash: String

    public init(sequence: Int64, record: SignatureRecord, previousHash: String, hash: String) {
        self.sequence = sequence
        self.record = record
        self.previousHash = previousHash
        self.hash = hash
    }
}
