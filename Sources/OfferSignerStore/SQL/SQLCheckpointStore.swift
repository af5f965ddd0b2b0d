import OfferSignerCore

/// Signed checkpoints in the `signature_checkpoints` table of the log's database (on
/// PostgreSQL, each instance's checkpointer adds its own; any of them vouches for the one chain).
final class SQLCheckpointStore<Database: SQLDatabase>: CheckpointStore, Sendable {
    private let database: Database

    init(database: Database) { self.database = database }

    public func add(_ checkpoint: AuditCheckpoint) throws {
        _ = try database.inTransaction { db in
            try db.change("INSERT INTO signature_checkpoints (seq, chain_hash, timestamp_ms, key_id, signature) VALUES (?, ?, ?, ?, ?)",
                          [.integer(checkpoint.sequence), .text(checkpoint.chainHash), .integer(checkpoint.timestamp),
                           .text(checkpoint.keyId), .text(checkpoint.signature)])
        }
    }

    public func checkpoints(afterId: Int64, limit: Int) throws -> [StoredCheckpoint] {
        try database.withReader(.audit) { db in
            try db.select("\(CheckpointSQL.selectColumns) WHERE id > ? ORDER BY id LIMIT ?", [.integer(afterId), .limit(limit)]) {
                StoredCheckpoint(id: $0.int64(0), checkpoint: Self.checkpoint($0))
            }
        }
    }

    public func latest() throws -> AuditCheckpoint? {
        try database.withReader(.audit) { db in
            try db.first("\(CheckpointSQL.selectColumns) ORDER BY seq DESC, id DESC LIMIT 1", row: Self.checkpoint)
        }
    }

    private static func checkpoint(_ row: some StoreRow) -> AuditCheckpoint {
        AuditCheckpoint(sequence: row.int64(1), chainHash: row.text(2), timestamp: row.int64(3), keyId: row.text(4), signature: row.text(5))
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteCheckpointStore = SQLCheckpointStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLCheckpointStore = SQLCheckpointStore<PostgreSQLDatabase>

/// The statements and constants of the store (a generic class cannot hold stored statics).
private enum CheckpointSQL {
    static let selectColumns = "SELECT id, seq, chain_hash, timestamp_ms, key_id, signature FROM signature_checkpoints"
}
