import Foundation
import OfferSignerCore

/// The report's join on SQLite (``ExperimentStore/forEachAssignedUser(bundleId:experimentId:environment:_:)``):
/// the same users and periods as ``SQLAssignedUsers`` (which PostgreSQL runs), in the same
/// order, found by merging two ordered cursors instead of one index seek per assignment.
///
/// For each of ``SQLAssignedUsers``' three ranges of user keys, one statement reads the
/// experiment's assignments in key order (the primary key) and another the app's periods in
/// the same order (a token's through `transactions_by_user`; a `transaction:` user's through
/// `transactions_by_original`, keyed `transaction:` + the original transaction ID), both on
/// one connection and one snapshot. The periods' cursor steps past the periods of users not
/// assigned; when it would step more than ``stepsBeforeSeek`` of them it seeks to the next
/// assigned key instead, so a small experiment among many periods costs what the join's seeks
/// cost, and a large one a scan of each index. Keys are compared byte by byte, as SQLite
/// orders them.
enum SQLiteAssignedUsers {
    /// How many periods of users not assigned the periods' cursor steps past before it seeks.
    static let stepsBeforeSeek = 16

    /// One range of keys: its assignments (bound to the experiment, then the range's bounds)
    /// and its periods from a key on.
    struct Range: Sendable {
        let assignments: String
        let bounds: [SQLValue]
        /// Whether the periods are found by original transaction ID (`transaction:` users).
        let byTransaction: Bool

        var periods: String { byTransaction ? transactionPeriods : tokenPeriods }

        /// The periods' statement's values from `key` on (the app, the environment, the earliest end).
        func periodValues(_ bundleId: String, _ environment: String, _ since: Int64, _ key: String) -> [SQLValue] {
            guard byTransaction else { return [.text(bundleId), .text(key), .text(environment), .integer(since)] }
            return [.text(environment), .text(String(key.dropFirst(SQLAssignedUsers.transactionPrefix.count))), .text(bundleId),
                    .integer(since)]
        }
    }

    static func assignments(_ range: String) -> String {
        """
        SELECT \(SQLAssignedUsers.assignmentColumns) FROM experiment_assignments
        WHERE bundle_id = ? AND experiment_id = ? AND environment = ? AND \(range) ORDER BY user_key
        """
    }

    /// A token's periods from a key on: the environment compared as an expression so that the
    /// planner keeps to the index on the user (see ``SQLAssignedUsers/byToken``).
    static let tokenPeriods = """
        SELECT user_id, \(SQLAssignedUsers.periodColumns) FROM transactions
        WHERE bundle_id = ? AND user_id >= ? AND environment || '' = ? AND (expires_ms IS NULL OR expires_ms >= ?)
        ORDER BY user_id
        """
    /// A `transaction:` user's periods from an original transaction ID on.
    static let transactionPeriods = """
        SELECT '\(SQLAssignedUsers.transactionPrefix)' || original_transaction_id, \(SQLAssignedUsers.periodColumns) FROM transactions
        WHERE environment = ? AND original_transaction_id >= ? AND bundle_id = ? AND (expires_ms IS NULL OR expires_ms >= ?)
        ORDER BY original_transaction_id
        """

    static let ranges = [
        Range(assignments: assignments("user_key < ?"), bounds: [.text(SQLAssignedUsers.transactionPrefix)], byTransaction: false),
        Range(assignments: assignments("user_key >= ? AND user_key < ?"),
              bounds: [.text(SQLAssignedUsers.transactionPrefix), .text(SQLAssignedUsers.afterTransactionKeys)], byTransaction: true),
        Range(assignments: assignments("user_key >= ?"), bounds: [.text(SQLAssignedUsers.afterTransactionKeys)], byTransaction: false),
    ]

    /// Calls `body` with each assigned user of the experiment in `environment` and their
    /// periods, in key order.
    static func forEach(_ db: SQLiteConnection, bundleId: String, experimentId: String, environment: String,
                        _ body: (ExperimentAssignment, [ExperimentPeriod]) throws -> Void) throws {
        let experiment: [SQLValue] = [.text(bundleId), .text(experimentId), .text(environment)]
        guard let since = try SQLAssignedUsers.earliestAssignment(db, experiment) else { return }
        var periods: [ExperimentPeriod] = []
        for range in ranges {
            let assigned = try db.statement(range.assignments)
            defer { assigned.reset() }
            try assigned.bind(experiment + range.bounds)
            let assignment = SQLiteRow(statement: assigned)
            let found = try db.statement(range.periods)
            defer { found.reset() }
            let period = SQLiteRow(statement: found)
            var started = false
            var more = false
            func seek(_ key: String) throws {
                found.reset()
                try found.bind(range.periodValues(bundleId, environment, since, key))
                more = try found.step()
            }
            while try assigned.step() {
                let userKey = assignment.text(0)
                if !started {
                    try seek(userKey)
                    started = true
                } else {
                    var steps = 0
                    while more && period.compareText(0, with: assignment, 0) < 0 {
                        guard steps < stepsBeforeSeek else {
                            try seek(userKey)
                            break
                        }
                        more = try found.step()
                        steps += 1
                    }
                }
                periods.removeAll(keepingCapacity: true)
                while more && period.compareText(0, with: assignment, 0) == 0 {
                    periods.append(SQLAssignedUsers.period(period, from: 1))
                    more = try found.step()
                }
                try body(SQLAssignedUsers.assignment(assignment, from: 0, userKey: userKey, bundleId: bundleId,
                                                     experimentId: experimentId, environment: environment), periods)
            }
        }
    }
}
