import OfferSignerCore

/// Signed checkpoints in the `signature_checkpoints` table of the log's PostgreSQL database
/// (each instance's checkpointer adds its own; any of them vouches for the one chain).
public final class PostgreSQLCheckpointStore: CheckpointStore, Sendable {
    private let database: PostgreSQLDatabase

    public init(database: PostgreSQLDatabase) {
        self.database = database
    }

    public func add(_ checkpoint: AuditCheckpoint) throws {
        _ = try database.write { db in
            try db.query("INSERT INTO signature_checkpoints (seq, chain_hash, timestamp_ms, key_id, signature) VALUES ($1, $2, $3, $4, $5)",
                         [.integer(checkpoint.sequence), .text(checkpoint.chainHash), .integer(checkpoint.timestamp),
                          .text(checkpoint.keyId), .text(checkpoint.signature)])
        }
    }

    public func checkpoints(afterId: Int64, limit: Int) throws -> [StoredCheckpoint] {
        try database.read(.audit) { db in
            try db.query("\(Self.selectColumns) WHERE id > $1 ORDER BY id LIMIT $2", [.integer(afterId), .integer(Int64(max(0, limit)))])
                .map { StoredCheckpoint(id: $0.int64(0), checkpoint: Self.checkpoint($0)) }
        }
    }

    public func latest() throws -> AuditCheckpoint? {
        try database.read(.audit) { db in
            try db.query("\(Self.selectColumns) ORDER BY seq DESC, id DESC LIMIT 1").map(Self.checkpoint).first
        }
    }

    private static let selectColumns = "SELECT id, seq, chain_hash, timestamp_ms, key_id, signature FROM signature_checkpoints"

    private static func checkpoint(_ row: PostgreSQLRow) -> AuditCheckpoint {
        AuditCheckpoint(sequence: row.int64(1), chainHash: row.text(2), timestamp: row.int64(3), keyId: row.text(4), signature: row.text(5))
    }
}
