import Foundation
import OfferSignerCore

/// An experiment's assigned users with their periods, joined by the database for the report
/// (``ExperimentStore/forEachAssignedUser(bundleId:experimentId:environment:_:)``), written
/// once for both engines.
///
/// The user keys fall in three ranges in byte order: app account tokens before
/// `transaction:`, the `transaction:` users, tokens after them. Each range is one statement,
/// ordered by the key, run in that order, so the users come in key order without a sort of
/// the union: a token's periods are found through `transactions_by_user` (bundle, user ID —
/// stored lowercased, as the key is), a `transaction:` user's through `transactions_by_original`
/// (environment, original transaction ID). The rows of one user are consecutive; each period
/// is a row, an assignment without one a row of NULLs (a left join).
enum SQLAssignedUsers {
    /// `transaction:`, the prefix of a user known by an original transaction ID.
    static let transactionPrefix = OfferHoldout.transactionUserPrefix
    /// The first key after every `transaction:` key (`:` + 1 is `;`).
    static let afterTransactionKeys = String(transactionPrefix.dropLast()) + ";"

    /// The columns of a row: the assignment's, then the period's.
    static let columns = """
        a.user_key, a.arm_id, a.weight_period, a.assigned_at_ms, a.eligible, a.first_signed_at_ms,
            t.purchase_ms, t.expires_ms, t.revocation_ms, t.offer_type, t.price, t.currency
        """

    /// One range of keys (`range`, with its placeholders) joined to the periods by `match`. The
    /// periods are those ending at or after the `?` after `match`'s own placeholders.
    static func statement(match: String, range: String) -> String {
        """
        SELECT \(columns)
        FROM experiment_assignments a
        LEFT JOIN transactions t ON \(match) AND (t.expires_ms IS NULL OR t.expires_ms >= ?)
        WHERE a.bundle_id = ? AND a.experiment_id = ? AND a.environment = ? AND \(range)
        ORDER BY a.user_key
        """
    }

    /// A token's periods: same app and user ID. The environment is compared as an expression
    /// (`|| ''`) so that SQLite's planner, which has no statistics, takes the index on the user
    /// rather than the one on (environment, original transaction ID), which the environment
    /// alone would select almost whole.
    static let byToken = "t.bundle_id = a.bundle_id AND t.user_id = a.user_key AND t.environment || '' = a.environment"
    /// A `transaction:` user's periods: same environment, original transaction ID and app.
    static let byTransaction = "t.environment = a.environment AND t.original_transaction_id = SUBSTR(a.user_key, \(transactionPrefix.count + 1)) AND t.bundle_id = a.bundle_id"

    /// The three statements in key order, each with its range's values.
    static let ranges: [(sql: String, bounds: [SQLValue])] = [
        (statement(match: byToken, range: "a.user_key < ?"), [.text(transactionPrefix)]),
        (statement(match: byTransaction, range: "a.user_key >= ? AND a.user_key < ?"), [.text(transactionPrefix), .text(afterTransactionKeys)]),
        (statement(match: byToken, range: "a.user_key >= ?"), [.text(afterTransactionKeys)]),
    ]

    /// Calls `body` with each assigned user of the experiment in `environment` and their
    /// periods, in key order, on one connection.
    static func forEach(_ db: some SQLConnection, bundleId: String, experimentId: String, environment: String,
                        _ body: (ExperimentAssignment, [ExperimentPeriod]) throws -> Void) throws {
        let experiment: [SQLValue] = [.text(bundleId), .text(experimentId), .text(environment)]
        guard let since = try db.first("""
            SELECT MIN(assigned_at_ms) FROM experiment_assignments WHERE bundle_id = ? AND experiment_id = ? AND environment = ?
            """, experiment, row: { $0.optionalInt64(0) }) ?? nil else { return }
        var current: ExperimentAssignment?
        var periods: [ExperimentPeriod] = []
        for range in ranges {
            _ = try db.select(range.sql, [.integer(since)] + experiment + range.bounds) { row in
                let userKey = row.text(0)
                if userKey != current?.userKey {
                    if let current { try body(current, periods) }
                    periods.removeAll(keepingCapacity: true)
                    current = ExperimentAssignment(bundleId: bundleId, experimentId: experimentId, userKey: userKey, armId: row.text(1),
                                                   weightPeriod: row.int(2), environment: environment, assignedAt: row.int64(3),
                                                   eligible: row.int64(4) != 0, firstSignedAt: row.optionalInt64(5))
                }
                guard !row.isNull(6) else { return }
                periods.append(ExperimentPeriod(purchasedAt: row.int64(6), expiresAt: row.optionalInt64(7), revokedAt: row.optionalInt64(8),
                                                offerType: row.optionalInt64(9).map(Int.init), price: row.optionalInt64(10),
                                                currency: row.optionalText(11) ?? "XXX"))
            }
        }
        if let current { try body(current, periods) }
    }
}
