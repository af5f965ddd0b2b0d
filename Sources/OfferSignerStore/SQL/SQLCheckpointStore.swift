import OfferSignerCore

/// Signed checkpoints in the `signature_checkpoints` table of the log's database (on
/// PostgreSQL, each instance's checkpointer adds its own; any of them vouches for the one chain).
public final class SQLCheckpointStore: CheckpointStore, Sendable {
    private let database: any SQLDatabase

    public init(database: SQLiteDatabase) { self.database = database }
    public init(database: PostgreSQLDatabase) { self.database = database }

    public func add(_ checkpoint: AuditCheckpoint) throws {
        _ = try database.inTransaction { db in
            try db.change("INSERT INTO signature_checkpoints (seq, chain_hash, timestamp_ms, key_id, signature) VALUES (?, ?, ?, ?, ?)",
                          [.integer(checkpoint.sequence), .text(checkpoint.chainHash), .integer(checkpoint.timestamp),
                           .text(checkpoint.keyId), .text(checkpoint.signature)])
        }
    }

    public func checkpoints(afterId: Int64, limit: Int) throws -> [StoredCheckpoint] {
        try database.withReader(.audit) { db in
            try db.select("\(Self.selectColumns) WHERE id > ? ORDER BY id LIMIT ?", [.integer(afterId), .limit(limit)]) {
                StoredCheckpoint(id: $0.int64(0), checkpoint: Self.checkpoint($0))
            }
        }
    }

    public func latest() throws -> AuditCheckpoint? {
        try database.withReader(.audit) { db in
            try db.first("\(Self.selectColumns) ORDER BY seq DESC, id DESC LIMIT 1", row: Self.checkpoint)
        }
    }

    private static let selectColumns = "SELECT id, seq, chain_hash, timestamp_ms, key_id, signature FROM signature_checkpoints"

    private static func checkpoint(_ row: any StoreRow) -> AuditCheckpoint {
        AuditCheckpoint(sequence: row.int64(1), chainHash: row.text(2), timestamp: row.int64(3), keyId: row.text(4), signature: row.text(5))
    }
}

/// The store as SQLite's callers know it.
public typealias SQLiteCheckpointStore = SQLCheckpointStore
/// The store as PostgreSQL's callers know it.
public typealias PostgreSQLCheckpointStore = SQLCheckpointStore
