import OfferSignerCore

/// Signed checkpoints in the `signature_checkpoints` table of the log's database.
public final class SQLiteCheckpointStore: CheckpointStore, Sendable {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func add(_ checkpoint: AuditCheckpoint) throws {
        try database.write { db in
            try db.run("INSERT INTO signature_checkpoints (seq, chain_hash, timestamp_ms, key_id, signature) VALUES (?, ?, ?, ?, ?)",
                       [.integer(checkpoint.sequence), .text(checkpoint.chainHash), .integer(checkpoint.timestamp),
                        .text(checkpoint.keyId), .text(checkpoint.signature)])
        }
    }

    public func checkpoints(afterId: Int64, limit: Int) throws -> [StoredCheckpoint] {
        try database.read(.audit) { db in
            try db.query("\(Self.selectColumns) WHERE id > ? ORDER BY id LIMIT ?", [.integer(afterId), .integer(Int64(limit))]) { row in
                StoredCheckpoint(id: row.int64(0), checkpoint: Self.checkpoint(row))
            }
        }
    }

    public func latest() throws -> AuditCheckpoint? {
        try database.read(.audit) { db in
            try db.query("\(Self.selectColumns) ORDER BY seq DESC, id DESC LIMIT 1", row: Self.checkpoint).first
        }
    }

    private static let selectColumns = "SELECT id, seq, chain_hash, timestamp_ms, key_id, signature FROM signature_checkpoints"

    private static func checkpoint(_ row: SQLiteRow) -> AuditCheckpoint {
        AuditCheckpoint(sequence: row.int64(1), chainHash: row.text(2), timestamp: row.int64(3), keyId: row.text(4), signature: row.text(5))
    }
}
