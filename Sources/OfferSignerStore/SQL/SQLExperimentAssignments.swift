import Foundation

/// The statements of `experiment_assignments`, written once for both engines: used by
/// ``SQLExperimentStore`` in a transaction of its own and by the signature log inside its
/// batch's transaction (``SignatureBatchAssignments``).
enum SQLExperimentAssignments {
    /// A user of an experiment: the table's key.
    struct Key: Hashable {
        let bundleId: String
        let experimentId: String
        let userKey: String

        init(bundleId: String, experimentId: String, userKey: String) {
            self.bundleId = bundleId
            self.experimentId = experimentId
            self.userKey = userKey
        }

        init(_ assignment: ExperimentAssignment) {
            self.init(bundleId: assignment.bundleId, experimentId: assignment.experimentId, userKey: assignment.userKey)
        }

        var values: [SQLValue] { [.text(bundleId), .text(experimentId), .text(userKey)] }
    }

    /// Rows a statement inserts at most (9 values each).
    static let rowsPerStatement = 64

    /// Inserts each of `assignments` whose user has no assignment in its experiment yet (a
    /// user already assigned keeps that assignment: `ON CONFLICT DO NOTHING`); per assignment,
    /// whether it was inserted. `assignments` name each key once, in key order (so that two
    /// transactions inserting the same users on PostgreSQL wait for each other in one order,
    /// never in a cycle).
    ///
    /// - Parameter rowByRow: one statement a row (``insertOne(_:_:)``), where a statement is a
    ///   call into the process (SQLite: a `RETURNING` clause cost about half again the
    ///   insert); otherwise up to ``rowsPerStatement`` rows a statement, told by `RETURNING`
    ///   (where each statement is a round trip, PostgreSQL).
    static func insertNew(_ assignments: [ExperimentAssignment], _ db: some SQLConnection, rowByRow: Bool = false) throws -> [Bool] {
        if rowByRow {
            return try assignments.map { try insertOne($0, db) }
        }
        var inserted: [Bool] = []
        inserted.reserveCapacity(assignments.count)
        var start = 0
        while start < assignments.count {
            let chunk = assignments[start..<min(start + rowsPerStatement, assignments.count)]
            let rows = try db.select("""
                INSERT INTO experiment_assignments (bundle_id, experiment_id, user_key, arm_id, weight_period, environment,
                    assigned_at_ms, eligible, first_signed_at_ms)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "))
                ON CONFLICT (bundle_id, experiment_id, user_key) DO NOTHING
                RETURNING bundle_id, experiment_id, user_key
                """, chunk.flatMap(values)) { row in
                Key(bundleId: row.text(0), experimentId: row.text(1), userKey: row.text(2))
            }
            let returned = Set(rows)
            inserted += chunk.map { returned.contains(Key($0)) }
            start += chunk.count
        }
        return inserted
    }

    /// Inserts `assignment` unless its user is assigned already; whether it was inserted (told
    /// by the rows the statement changed: SQLite counts none for a conflict skipped).
    static func insertOne(_ assignment: ExperimentAssignment, _ db: some SQLConnection) throws -> Bool {
        try db.change(insertOneSQL, values(assignment)) == 1
    }

    /// One row's insert, unless the user is assigned already.
    private static let insertOneSQL = """
        INSERT INTO experiment_assignments (bundle_id, experiment_id, user_key, arm_id, weight_period, environment,
            assigned_at_ms, eligible, first_signed_at_ms)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (bundle_id, experiment_id, user_key) DO NOTHING
        """

    /// The values of an assignment's row, in the columns' order.
    private static func values(_ assignment: ExperimentAssignment) -> [SQLValue] {
        [.text(assignment.bundleId), .text(assignment.experimentId), .text(assignment.userKey), .text(assignment.armId),
         .integer(Int64(assignment.weightPeriod)), .text(assignment.environment), .integer(assignment.assignedAt),
         .integer(assignment.eligible ? 1 : 0), .optional(assignment.firstSignedAt)]
    }

    /// The user's stored assignment.
    static func stored(_ key: Key, _ db: some SQLConnection) throws -> ExperimentAssignment? {
        try db.first("""
            SELECT arm_id, weight_period, environment, assigned_at_ms, eligible, first_signed_at_ms
            FROM experiment_assignments WHERE bundle_id = ? AND experiment_id = ? AND user_key = ?
            """, key.values) { row in
            ExperimentAssignment(bundleId: key.bundleId, experimentId: key.experimentId, userKey: key.userKey, armId: row.text(0),
                                 weightPeriod: row.int(1), environment: row.text(2), assignedAt: row.int64(3),
                                 eligible: row.int64(4) != 0, firstSignedAt: row.optionalInt64(5))
        }
    }

    /// Marks the stored assignment eligible (when `eligible`) and first signed at `signedAt`
    /// (unless already signed); never undoes either. The rows changed.
    @discardableResult
    static func mark(_ key: Key, eligible: Bool, signedAt: Int64?, _ db: some SQLConnection) throws -> Int {
        try db.change("""
            UPDATE experiment_assignments
            SET eligible = CASE WHEN eligible = 1 OR ? = 1 THEN 1 ELSE 0 END,
                first_signed_at_ms = COALESCE(first_signed_at_ms, ?)
            WHERE bundle_id = ? AND experiment_id = ? AND user_key = ?
            """, [.integer(eligible ? 1 : 0), .optional(signedAt)] + key.values)
    }

    /// Takes back the first signature time `signedAt` of an assignment inserted in this
    /// transaction whose signature the log then refused (the quota).
    static func unmarkSigned(_ key: Key, signedAt: Int64, _ db: some SQLConnection) throws {
        try db.change("""
            UPDATE experiment_assignments SET first_signed_at_ms = NULL
            WHERE bundle_id = ? AND experiment_id = ? AND user_key = ? AND first_signed_at_ms = ?
            """, key.values + [.integer(signedAt)])
    }
}
