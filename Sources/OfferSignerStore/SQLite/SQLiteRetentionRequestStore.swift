import Foundation
import OfferSignerCore

/// Answered Retention Messaging requests in SQLite (`retention_requests`). Records from many
/// threads are group-committed, as signatures are, so an answer costs no sync of its own.
public final class SQLiteRetentionRequestStore: RetentionRequestStore, Sendable {
    private let database: SQLiteDatabase
    private let committer: GroupCommitter<AnsweredRetentionRequest, AnsweredRetentionRequest>

    public init(database: SQLiteDatabase) {
        self.database = database
        committer = GroupCommitter(database: database, name: "retention-request-writer") { batch, db in
            try batch.map { request in .success(try Self.write(request, db)) }
        }
    }

    deinit {
        committer.close()
    }

    /// Stops the writer once the records already waiting are written.
    public func close() {
        committer.close()
    }

    public func answered(requestIdentifier: String) throws -> AnsweredRetentionRequest? {
        try database.read { db in try Self.find(requestIdentifier, db) }
    }

    public func record(_ request: AnsweredRetentionRequest) throws -> AnsweredRetentionRequest {
        try committer.submit(request).get()
    }

    /// Inserts `request` unless its identifier is already recorded; returns what is recorded.
    private static func write(_ request: AnsweredRetentionRequest, _ db: SQLiteConnection) throws -> AnsweredRetentionRequest {
        let r = request
        try db.run("""
            INSERT INTO retention_requests (\(RetentionRequestRows.columns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(request_identifier) DO NOTHING
            """, [.text(r.requestIdentifier), .text(r.bundleId), .text(r.environment.rawValue), .text(r.originalTransactionId),
                  .text(r.productId), .text(r.userLocale), .optional(r.userId), .optional(r.ruleId), .text(r.answer.rawValue),
                  .optional(r.signatureNonce), .text(r.responseJSON), .integer(r.signedDate), .integer(r.answeredAt.milliseconds)])
        if db.changes == 1 { return request }
        guard let first = try find(request.requestIdentifier, db) else {
            throw UnreadableRetentionRequest(requestIdentifier: request.requestIdentifier, problem: "it was neither inserted nor found")
        }
        return first
    }

    private static func find(_ requestIdentifier: String, _ db: SQLiteConnection) throws -> AnsweredRetentionRequest? {
        try db.query("SELECT \(RetentionRequestRows.columns) FROM retention_requests WHERE request_identifier = ?",
                     [.text(requestIdentifier)]) { try RetentionRequestRows.answered($0) }.first
    }
}
