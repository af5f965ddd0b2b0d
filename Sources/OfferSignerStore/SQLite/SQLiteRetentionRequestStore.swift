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
            INSERT INTO retention_requests (request_identifier, bundle_id, environment, original_transaction_id, product_id,
                user_locale, user_id, rule_id, answer, signature_nonce, response_json, signed_date_ms, answered_at_ms)
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
        try db.query("""
            SELECT request_identifier, bundle_id, environment, original_transaction_id, product_id, user_locale, user_id,
                rule_id, answer, signature_nonce, response_json, signed_date_ms, answered_at_ms
            FROM retention_requests WHERE request_identifier = ?
            """, [.text(requestIdentifier)]) { row in
            guard let environment = AppStoreEnvironment(rawValue: row.text(2)),
                  let answer = RetentionAnswerKind(rawValue: row.text(8)) else {
                throw UnreadableRetentionRequest(requestIdentifier: row.text(0), problem: "its environment or answer is unknown")
            }
            return AnsweredRetentionRequest(
                requestIdentifier: row.text(0), bundleId: row.text(1), environment: environment, originalTransactionId: row.text(3),
                productId: row.text(4), userLocale: row.text(5), userId: row.optionalText(6), ruleId: row.optionalText(7),
                answer: answer, signatureNonce: row.optionalText(9), responseJSON: row.text(10), signedDate: row.int64(11),
                answeredAt: Date(milliseconds: row.int64(12)))
        }.first
    }
}

/// A `retention_requests` row that is not one this service writes.
struct UnreadableRetentionRequest: Error, CustomStringConvertible {
    let requestIdentifier: String
    let problem: String

    var description: String { "retention request \(requestIdentifier) cannot be read: \(problem)" }
}
