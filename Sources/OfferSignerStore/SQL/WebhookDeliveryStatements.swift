import Foundation

/// What a webhook lane's claim and record write: the claim's lease in one statement (per up to
/// ``rowsPerStatement`` rows) instead of one per row; the tries of a record in one statement
/// where a statement is a round trip (PostgreSQL), one per try where it is a call into the
/// process (SQLite: there one `UPDATE … FROM` a list of values cost more than the simple updates
/// it replaced, measured under callgrind). The texts of many rows are made once (by rows − 1), so
/// SQLite's connection finds its prepared statement by the text's address and PostgreSQL's by
/// the text, without building SQL per claim.
///
/// Neither sets the event's body: a lease and an outcome change only the delivery's columns.
enum WebhookDeliveryStatements {
    /// The most rows one statement leases or records.
    static let rowsPerStatement = 64
    /// The values of one recorded try (``recordTexts``).
    private static let recordColumns = 9

    /// Leases the rows `ids` until `until` for the claim `claim`, inside the claim's transaction,
    /// which has read these rows (and, on PostgreSQL, locked them `FOR UPDATE SKIP LOCKED`), so
    /// nothing else changes them before it commits.
    static func lease(_ ids: [Int64], until: Int64, claim: String, _ db: some SQLConnection) throws {
        var start = 0
        var values: [SQLValue] = []
        values.reserveCapacity(2 + min(ids.count, rowsPerStatement))
        while start < ids.count {
            let rows = ids[start..<min(start + rowsPerStatement, ids.count)]
            values.removeAll(keepingCapacity: true)
            values.append(.integer(until))
            values.append(.text(claim))
            for id in rows { values.append(.integer(id)) }
            try db.change(leaseTexts[rows.count - 1], values)
            start += rows.count
        }
    }

    /// Records `attempts` inside the record's transaction; for each, whether its row was changed
    /// (it was, unless the row no longer carries the try's claim: a lease that ended and was
    /// claimed again). `inOneStatement`: the whole run in one statement per up to
    /// ``rowsPerStatement`` tries, else one statement each.
    static func record(_ attempts: [DeliveryAttempt], inOneStatement: Bool, _ db: some SQLConnection) throws -> [Bool] {
        guard inOneStatement else {
            return try attempts.map { attempt in
                let outcome = Outcome(attempt)
                return try db.change("""
                    UPDATE webhook_outbox SET state = ?, attempts = attempts + 1, next_attempt_ms = ?, lease_until_ms = NULL, claim = NULL,
                        last_attempt_ms = ?, last_status = ?, last_answer = ?, last_error = ?, delivered_at_ms = ?
                    WHERE id = ? AND claim = ?
                    """, [.text(outcome.state), .integer(outcome.next), .integer(attempt.at.milliseconds),
                          .optional(attempt.status.map(Int64.init)), .optional(attempt.answer), .optional(attempt.error),
                          .optional(outcome.delivered), .integer(attempt.delivery.id), .text(attempt.delivery.claim)]) == 1
            }
        }
        var recorded = Set<Int64>(minimumCapacity: attempts.count)
        var values: [SQLValue] = []
        values.reserveCapacity(min(attempts.count, rowsPerStatement) * recordColumns)
        var start = 0
        while start < attempts.count {
            let tries = attempts[start..<min(start + rowsPerStatement, attempts.count)]
            values.removeAll(keepingCapacity: true)
            for attempt in tries {
                let outcome = Outcome(attempt)
                values.append(.integer(attempt.delivery.id))
                values.append(.text(attempt.delivery.claim))
                values.append(.text(outcome.state))
                values.append(.integer(outcome.next))
                values.append(.integer(attempt.at.milliseconds))
                values.append(.optional(attempt.status.map(Int64.init)))
                values.append(.optional(attempt.answer))
                values.append(.optional(attempt.error))
                values.append(.optional(outcome.delivered))
            }
            for id in try db.select(recordTexts[tries.count - 1], values, row: { $0.int64(0) }) { recorded.insert(id) }
            start += tries.count
        }
        return attempts.map { recorded.contains($0.delivery.id) }
    }

    /// The columns a try's outcome sets beside its answer.
    private struct Outcome {
        let state: String
        let next: Int64
        let delivered: Int64?

        init(_ attempt: DeliveryAttempt) {
            switch attempt.outcome {
            case .delivered: (state, next, delivered) = ("delivered", attempt.at.milliseconds, attempt.at.milliseconds)
            case .retry(let at): (state, next, delivered) = ("pending", at.milliseconds, nil)
            case .dead: (state, next, delivered) = ("dead", attempt.at.milliseconds, nil)
            }
        }
    }

    /// Leases rows by ID: the lease's end and the claim's token (2 values), then 1…``rowsPerStatement`` IDs.
    static let leaseTexts: [String] = (1...rowsPerStatement).map { rows in
        "UPDATE webhook_outbox SET lease_until_ms = ?, claim = ? WHERE id IN (\(Array(repeating: "?", count: rows).joined(separator: ", ")))"
    }

    /// Records 1…``rowsPerStatement`` tries, each ``recordColumns`` values (ID, claim, state, next
    /// attempt, attempted at, status, answer, error, delivered at), and returns the IDs of the
    /// rows it changed: a row is changed only while it still carries the try's claim. The
    /// integers are cast so PostgreSQL types the `VALUES` columns (its parameters come as text).
    static let recordTexts: [String] = (1...rowsPerStatement).map { rows in
        let row = "(CAST(? AS BIGINT), ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), ?, ?, CAST(? AS BIGINT))"
        return """
            WITH tries (id, claim, state, next_ms, at_ms, status, answer, error, delivered_ms) AS (
                VALUES \(Array(repeating: row, count: rows).joined(separator: ", ")))
            UPDATE webhook_outbox SET state = tries.state, attempts = webhook_outbox.attempts + 1, next_attempt_ms = tries.next_ms,
                lease_until_ms = NULL, claim = NULL, last_attempt_ms = tries.at_ms, last_status = tries.status,
                last_answer = tries.answer, last_error = tries.error, delivered_at_ms = tries.delivered_ms
            FROM tries WHERE webhook_outbox.id = tries.id AND webhook_outbox.claim = tries.claim
            RETURNING webhook_outbox.id
            """
    }
}
