import Foundation
import OfferSignerCore

/// Answered Retention Messaging requests in PostgreSQL (`retention_requests`), group-committed
/// per instance like the SQLite store. Idempotent across instances: a request is inserted
/// `ON CONFLICT DO NOTHING` on its `requestIdentifier`, so when the App Store's request reaches
/// two instances at once the second insert waits for the first to commit and then returns the
/// first answer.
public final class PostgreSQLRetentionRequestStore: RetentionRequestStore, Sendable {
    private let database: PostgreSQLDatabase
    private let committer: GroupCommitter<AnsweredRetentionRequest, AnsweredRetentionRequest>

    public init(database: PostgreSQLDatabase) {
        self.database = database
        committer = GroupCommitter(name: "retention-request-writer") { batch in
            try database.write { db in try batch.map { request in .success(try Self.write(request, db)) } }
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
    private static func write(_ request: AnsweredRetentionRequest, _ db: PostgreSQLConnection) throws -> AnsweredRetentionRequest {
        let r = request
        let inserted = try db.query("""
            INSERT INTO retention_requests (\(RetentionRequestRows.columns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
            ON CONFLICT (request_identifier) DO NOTHING
            """, [.text(r.requestIdentifier), .text(r.bundleId), .text(r.environment.rawValue), .text(r.originalTransactionId),
                  .text(r.productId), .text(r.userLocale), .optional(r.userId), .optional(r.ruleId), .text(r.answer.rawValue),
                  .optional(r.signatureNonce), .text(r.responseJSON), .integer(r.signedDate),
                  .integer(r.answeredAt.milliseconds)]).affectedRows
        if inserted == 1 { return request }
        guard let first = try find(request.requestIdentifier, db) else {
            throw UnreadableRetentionRequest(requestIdentifier: request.requestIdentifier, problem: "it was neither inserted nor found")
        }
        return first
    }

    private static func find(_ requestIdentifier: String, _ db: PostgreSQLConnection) throws -> AnsweredRetentionRequest? {
        try db.query("SELECT \(RetentionRequestRows.columns) FROM retention_requests WHERE request_identifier = $1",
                     [.text(requestIdentifier)]).map { try RetentionRequestRows.answered($0) }.first
    }
}
