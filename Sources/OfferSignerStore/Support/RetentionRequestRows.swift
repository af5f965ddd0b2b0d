import Foundation
import OfferSignerCore

/// The columns of the `retention_requests` table and its rows decoded; the same for both engines.
enum RetentionRequestRows {
    static let columns = """
        request_identifier, bundle_id, environment, original_transaction_id, product_id, user_locale, user_id,
        rule_id, answer, signature_nonce, response_json, signed_date_ms, answered_at_ms
        """

    /// A row of ``columns``; an environment or answer this service does not write means the row was changed.
    static func answered(_ row: some StoreRow) throws -> AnsweredRetentionRequest {
        guard let environment = AppStoreEnvironment(rawValue: row.text(2)),
              let answer = RetentionAnswerKind(rawValue: row.text(8)) else {
            throw UnreadableRetentionRequest(requestIdentifier: row.text(0), problem: "its environment or answer is unknown")
        }
        return AnsweredRetentionRequest(
            requestIdentifier: row.text(0), bundleId: row.text(1), environment: environment, originalTransactionId: row.text(3),
            productId: row.text(4), userLocale: row.text(5), userId: row.optionalText(6), ruleId: row.optionalText(7),
            answer: answer, signatureNonce: row.optionalText(9), responseJSON: row.text(10), signedDate: row.int64(11),
            answeredAt: Date(milliseconds: row.int64(12)))
    }
}

/// A `retention_requests` row that is not one this service writes.
struct UnreadableRetentionRequest: Error, CustomStringConvertible {
    let requestIdentifier: String
    let problem: String

    var description: String { "retention request \(requestIdentifier) cannot be read: \(problem)" }
}
