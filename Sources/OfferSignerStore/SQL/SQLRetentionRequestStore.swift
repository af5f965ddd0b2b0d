import Foundation
import OfferSignerCore

/// Answered Retention Messaging requests (`retention_requests`). Records from many threads are
/// group-committed, as signatures are, so an answer costs no sync of its own. Idempotent
/// across instances: a request is inserted `ON CONFLICT DO NOTHING` on its app, environment
/// and `requestIdentifier`, so when the App Store's request reaches two instances at once the
/// second insert waits for the first to commit and then returns the first answer.
final class SQLRetentionRequestStore<Database: SQLDatabase>: RetentionRequestStore, Sendable {
    private let database: Database
    private let committer: GroupCommitter<AnsweredRetentionRequest, AnsweredRetentionRequest>

    init(database: Database) {
        self.database = database
        committer = GroupCommitter(database: database, name: "retention-request-writer") { batch, db in
            try batch.map { .success(try Self.write($0, db)) }
        }
    }

    deinit { committer.close() }

    /// Stops the writer once the records already waiting are written.
    public func close() { committer.close() }

    public func answered(bundleId: String, environment: AppStoreEnvironment, requestIdentifier: String) throws -> AnsweredRetentionRequest? {
        try database.withReader { db in try Self.find(bundleId, environment.rawValue, requestIdentifier, db) }
    }

    public func prune(answeredBefore cutoff: Date, limit: Int) throws -> Int {
        try database.inTransaction { db in
            try db.change("""
                DELETE FROM retention_requests WHERE (bundle_id, environment, request_identifier) IN (
                    SELECT bundle_id, environment, request_identifier FROM retention_requests WHERE answered_at_ms < ?
                    ORDER BY answered_at_ms LIMIT ?)
                """, [.integer(cutoff.milliseconds), .limit(limit)])
        }
    }

    public func record(_ request: AnsweredRetentionRequest) throws -> AnsweredRetentionRequest {
        try committer.submit(request).get()
    }

    /// Inserts `request` unless its identifier is already recorded; returns what is recorded.
    private static func write(_ request: AnsweredRetentionRequest, _ db: Database.Connection) throws -> AnsweredRetentionRequest {
        let r = request
        let inserted = try db.change("""
            INSERT INTO retention_requests (\(RetentionRequestRows.columns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (bundle_id, environment, request_identifier) DO NOTHING
            """, [.text(r.requestIdentifier), .text(r.bundleId), .text(r.environment.rawValue), .text(r.originalTransactionId),
                  .text(r.productId), .text(r.userLocale), .optional(r.userId), .optional(r.ruleId), .text(r.answer.rawValue),
                  .optional(r.signatureNonce), .text(r.responseJSON), .integer(r.signedDate), .integer(r.answeredAt.milliseconds)])
        if inserted == 1 { return request }
        guard let first = try find(request.bundleId, request.environment.rawValue, request.requestIdentifier, db) else {
            throw UnreadableRetentionRequest(requestIdentifier: request.requestIdentifier, problem: "it was neither inserted nor found")
        }
        return first
    }

    private static func find(_ bundleId: String, _ environment: String, _ requestIdentifier: String,
                             _ db: Database.Connection) throws -> AnsweredRetentionRequest? {
        try db.first("""
            SELECT \(RetentionRequestRows.columns) FROM retention_requests
            WHERE bundle_id = ? AND environment = ? AND request_identifier = ?
            """, [.text(bundleId), .text(environment), .text(requestIdentifier)]) { try RetentionRequestRows.answered($0) }
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteRetentionRequestStore = SQLRetentionRequestStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLRetentionRequestStore = SQLRetentionRequestStore<PostgreSQLDatabase>
