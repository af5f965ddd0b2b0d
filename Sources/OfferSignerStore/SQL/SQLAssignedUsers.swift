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

    /// An assignment's columns, as ``assignment(_:from:userKey:bundleId:experimentId:environment:)`` reads them.
    static let assignmentColumns = "user_key, arm_id, weight_period, assigned_at_ms, eligible, first_signed_at_ms"
    /// A period's columns, as ``period(_:from:)`` reads them.
    static let periodColumns = "purchase_ms, expires_ms, revocation_ms, offer_type, price, currency"

    /// The columns of a row: the assignment's, then the period's.
    static let columns = "a." + assignmentColumns.replacingOccurrences(of: ", ", with: ", a.") + ", t."
        + periodColumns.replacingOccurrences(of: ", ", with: ", t.")

    /// The earliest assignment's time of the experiment in the environment (`experiment`: app,
    /// experiment, environment); nil when nobody is assigned.
    static func earliestAssignment(_ db: some SQLConnection, _ experiment: [SQLValue]) throws -> Int64? {
        try db.first("""
            SELECT MIN(assigned_at_ms) FROM experiment_assignments WHERE bundle_id = ? AND experiment_id = ? AND environment = ?
            """, experiment, row: { $0.optionalInt64(0) }) ?? nil
    }

    /// The assignment in ``assignmentColumns`` from `column` on, whose user key (that column)
    /// the caller has read already.
    static func assignment(_ row: some StoreRow, from column: Int32, userKey: String, bundleId: String, experimentId: String,
                           environment: String) -> ExperimentAssignment {
        ExperimentAssignment(bundleId: bundleId, experimentId: experimentId, userKey: userKey, armId: row.text(column + 1),
                             weightPeriod: row.int(column + 2), environment: environment, assignedAt: row.int64(column + 3),
                             eligible: row.int64(column + 4) != 0, firstSignedAt: row.optionalInt64(column + 5))
    }

    /// The period in ``periodColumns`` from `column` on (a currency not known reads `XXX`).
    static func period(_ row: some StoreRow, from column: Int32) -> ExperimentPeriod {
        ExperimentPeriod(purchasedAt: row.int64(column), expiresAt: row.optionalInt64(column + 1),
                         revokedAt: row.optionalInt64(column + 2), offerType: row.optionalInt64(column + 3).map(Int.init),
                         price: row.optionalInt64(column + 4), currency: row.optionalText(column + 5) ?? "XXX")
    }

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
        guard let since = try earliestAssignment(db, experiment) else { return }
        var current: ExperimentAssignment?
        var periods: [ExperimentPeriod] = []
        for range in ranges {
            _ = try db.select(range.sql, [.integer(since)] + experiment + range.bounds) { row in
                let userKey = row.text(0)
                if userKey != current?.userKey {
                    if let current { try body(current, periods) }
                    periods.removeAll(keepingCapacity: true)
                    current = assignment(row, from: 0, userKey: userKey, bundleId: bundleId, experimentId: experimentId, environment: environment)
                }
                guard !row.isNull(6) else { return }
                periods.append(period(row, from: 6))
            }
        }
        if let current { try body(current, periods) }
    }
}
