import OfferSignerCore

/// Where signed checkpoints of the signature log are kept beside it. The copies that protect
/// the log are the ones kept elsewhere (the JSON log, exports): whoever can rewrite the
/// database can delete these too.
public protocol CheckpointStore: Sendable {
    /// Stores `checkpoint` durably.
    func add(_ checkpoint: AuditCheckpoint) throws

    /// Checkpoints stored after the one with id `afterId`, oldest first.
    func checkpoints(afterId: Int64, limit: Int) throws -> [StoredCheckpoint]

    /// The checkpoint of the furthest chain position (the newest of those), if any.
    func latest() throws -> AuditCheckpoint?
}

/// A checkpoint with its place in the store, for paging.
public struct StoredCheckpoint: Sendable, Hashable {
    public var id: Int64
    public var checkpoint: AuditCheckpoint
}
