import Foundation

/// Backfill progress and recovered Notification History windows in PostgreSQL (tables
/// `appstore_backfill` and `appstore_recovered_windows`), shared by every instance.
public final class PostgreSQLAppStoreSyncStore: AppStoreSyncStore, Sendable {
    private let database: PostgreSQLDatabase

    public init(database: PostgreSQLDatabase) {
        self.database = database
    }

    public func backfilled(bundleId: String, among transactionIds: [String]) throws -> Set<String> {
        guard !transactionIds.isEmpty else { return [] }
        return try database.read { db in
            Set(try db.query("SELECT transaction_id FROM appstore_backfill WHERE bundle_id = $1 AND transaction_id = ANY($2::text[])",
                             [.text(bundleId), .textArray(transactionIds)]).map { $0.text(0) })
        }
    }

    public func recordBackfill(_ entries: [BackfillEntry]) throws {
        guard !entries.isEmpty else { return }
        try database.write { db in
            for entry in entries {
                try db.query("""
                    INSERT INTO appstore_backfill (bundle_id, transaction_id, outcome, environment, covered_by, finished_at_ms)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (bundle_id, transaction_id) DO UPDATE SET outcome = excluded.outcome,
                        environment = excluded.environment, covered_by = excluded.covered_by,
                        finished_at_ms = excluded.finished_at_ms
                    """, [.text(entry.bundleId), .text(entry.transactionId), .text(entry.outcome.rawValue),
                          .optional(entry.environment), .optional(entry.coveredBy), .integer(entry.finishedAt)])
            }
        }
    }

    public func lastRecoveredWindow(bundleId: String, environment: String) throws -> RecoveredWindow? {
        try database.read { db in
            try db.query("""
                SELECT start_ms, end_ms, found, stored, completed_at_ms FROM appstore_recovered_windows
                WHERE bundle_id = $1 AND environment = $2 ORDER BY end_ms DESC LIMIT 1
                """, [.text(bundleId), .text(environment)]).map { row in
                RecoveredWindow(bundleId: bundleId, environment: environment, start: row.int64(0), end: row.int64(1),
                                found: row.int(2), stored: row.int(3), completedAt: row.int64(4))
            }.first
        }
    }

    public func recordRecoveredWindow(_ window: RecoveredWindow) throws {
        _ = try database.write { db in
            try db.query("""
                INSERT INTO appstore_recovered_windows (bundle_id, environment, start_ms, end_ms, found, stored, completed_at_ms)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """, [.text(window.bundleId), .text(window.environment), .integer(window.start), .integer(window.end),
                      .integer(Int64(window.found)), .integer(Int64(window.stored)), .integer(window.completedAt)])
        }
    }
}
