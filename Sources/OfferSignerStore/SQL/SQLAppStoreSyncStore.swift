import Foundation

/// Backfill progress and recovered Notification History windows, beside the history they
/// describe (tables `appstore_backfill` and `appstore_recovered_windows`), shared by every
/// instance on PostgreSQL.
final class SQLAppStoreSyncStore<Database: SQLDatabase>: AppStoreSyncStore, Sendable {
    private let database: Database

    init(database: Database) { self.database = database }

    public func backfilled(bundleId: String, among transactionIds: [String]) throws -> Set<String> {
        guard !transactionIds.isEmpty else { return [] }
        return try database.withReader { db in
            Set(try db.select("SELECT transaction_id FROM appstore_backfill WHERE bundle_id = ? AND \(db.isOne(of: "transaction_id"))",
                              [.text(bundleId), .textArray(transactionIds)]) { $0.text(0) })
        }
    }

    public func recordBackfill(_ entries: [BackfillEntry]) throws {
        guard !entries.isEmpty else { return }
        try database.inTransaction { db in
            for entry in entries {
                try db.change("""
                    INSERT INTO appstore_backfill (bundle_id, transaction_id, outcome, environment, covered_by, finished_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (bundle_id, transaction_id) DO UPDATE SET outcome = excluded.outcome,
                        environment = excluded.environment, covered_by = excluded.covered_by,
                        finished_at_ms = excluded.finished_at_ms
                    """, [.text(entry.bundleId), .text(entry.transactionId), .text(entry.outcome.rawValue),
                          .optional(entry.environment), .optional(entry.coveredBy), .integer(entry.finishedAt)])
            }
        }
    }

    public func lastRecoveredWindow(bundleId: String, environment: String) throws -> RecoveredWindow? {
        try database.withReader { db in
            try db.first("""
                SELECT start_ms, end_ms, found, stored, completed_at_ms FROM appstore_recovered_windows
                WHERE bundle_id = ? AND environment = ? ORDER BY end_ms DESC LIMIT 1
                """, [.text(bundleId), .text(environment)]) { row in
                RecoveredWindow(bundleId: bundleId, environment: environment, start: row.int64(0), end: row.int64(1),
                                found: row.int(2), stored: row.int(3), completedAt: row.int64(4))
            }
        }
    }

    public func recordRecoveredWindow(_ window: RecoveredWindow) throws {
        _ = try database.inTransaction { db in
            try db.change("""
                INSERT INTO appstore_recovered_windows (bundle_id, environment, start_ms, end_ms, found, stored, completed_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.text(window.bundleId), .text(window.environment), .integer(window.start), .integer(window.end),
                      .integer(Int64(window.found)), .integer(Int64(window.stored)), .integer(window.completedAt)])
        }
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteAppStoreSyncStore = SQLAppStoreSyncStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLAppStoreSyncStore = SQLAppStoreSyncStore<PostgreSQLDatabase>
