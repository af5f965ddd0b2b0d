import Foundation
import OfferSignerCore

/// Offer experiments: experiments in `managed_rules` (through ``SQLRuleStore``'s change, so
/// they are versioned and audited like every managed rule), the placement each running one
/// holds (`experiment_placements`) and users' assignments (`experiment_assignments`).
/// A start or a stop writes `experiment.started` or `experiment.stopped` into the webhooks'
/// outbox in the change's own transaction.
///
/// Placements, experiments and which experiment runs on each placement are mirrored in memory
/// (``SQLPlacementMirror``), so a placement request reads only the user's assignment (one
/// primary-key read): all of them are current once a change of this process returns and
/// within about a second of one made by another process, as offer rules are. At most one
/// experiment runs on a placement: `experiment_placements`' key refuses a second start.
final class SQLExperimentStore<Database: SQLDatabase>: ExperimentStore, Sendable {
    private let database: Database
    private let rules: SQLRuleStore<Database>
    private let outbox: WebhookOutbox?
    private let mirror: SQLPlacementMirror<Database>

    /// - Parameter checksOnRead: reads check for changes made by other processes once a second
    ///   (false where a listener follows them: ``followChanges()``).
    init(database: Database, outbox: WebhookOutbox? = nil, checksOnRead: Bool = true) {
        self.database = database
        self.outbox = outbox
        rules = SQLRuleStore(database: database)
        mirror = SQLPlacementMirror(database: database, checksOnRead: checksOnRead)
    }

    /// Stops following changes.
    func close() {
        mirror.close()
    }

    func placement(bundleId: String, placementId: String) throws -> StoredRule<Placement>? {
        try mirror.placement(bundleId: bundleId, placementId: placementId)
    }

    func experiment(bundleId: String, experimentId: String) throws -> StoredRule<Experiment>? {
        try rules.rule(Experiment.self, bundleId: bundleId, ruleId: experimentId)
    }

    func experiments(bundleId: String?) throws -> [StoredRule<Experiment>] {
        try rules.rules(Experiment.self, bundleId: bundleId)
    }

    func changes(bundleId: String?, experimentId: String?, afterId: Int64, limit: Int) throws -> [RuleChange<Experiment>] {
        try rules.changes(Experiment.self, bundleId: bundleId, ruleId: experimentId, afterId: afterId, limit: limit)
    }

    func change(bundleId: String, experimentId: String, by actor: String, at now: Date,
                _ decide: (ExperimentChangeContext) throws -> ExperimentChange?) throws -> StoredRule<Experiment>? {
        defer { ManagedRuleChanges.committed() }
        return try database.inTransaction { db in
            try db.lockForChanges(SQLChangeLock.rules)
            let existing = try SQLRuleStore<Database>.stored(Experiment.self, bundleId: bundleId, ruleId: experimentId, db)
            let context = ExperimentChangeContext(
                existing: existing,
                runningOn: { placementId in
                    try db.first("SELECT experiment_id FROM experiment_placements WHERE bundle_id = ? AND placement_id = ?",
                                 [.text(bundleId), .text(placementId)]) { $0.text(0) }
                },
                placement: { placementId in
                    try SQLRuleStore<Database>.stored(Placement.self, bundleId: bundleId, ruleId: placementId, db)
                })
            guard let decided = try decide(context) else { return existing }
            let experiment = decided.experiment
            precondition(experiment.bundleId == bundleId && experiment.experimentId == experimentId, "an experiment changes in place")
            if let placement = decided.placement {
                _ = try SQLRuleStore<Database>.change(Placement.self, bundleId: bundleId, ruleId: placement.placementId, db,
                                                      by: actor, at: now) { _ in placement }
            }
            let stored = try SQLRuleStore<Database>.change(Experiment.self, bundleId: bundleId, ruleId: experimentId, db,
                                                           by: actor, at: now) { _ in experiment }
            _ = try db.change("DELETE FROM experiment_placements WHERE bundle_id = ? AND experiment_id = ?",
                              [.text(bundleId), .text(experimentId)])
            if experiment.status == .running {
                _ = try db.change("INSERT INTO experiment_placements (bundle_id, placement_id, experiment_id) VALUES (?, ?, ?)",
                                  [.text(bundleId), .text(experiment.definition.placement), .text(experimentId)])
            }
            if let outbox, let event = WebhookEvents.experiment(experiment, before: existing?.rule.status, by: actor, at: now),
               outbox.isSubscribed(event.type, bundleId: bundleId) {
                try outbox.write([event], db, now: now)
            }
            return stored
        }
    }

    /// Where a statement is no round trip (SQLite) and every user of the experiment was drawn
    /// under the weights in force (one weight period), the assignment is not read here: the
    /// arm drawn now is the one any stored assignment names, and the signature's commit reads
    /// the user's row on the writer's connection inside its transaction (no read transaction
    /// and reader of its own, the writer's pages cached), inserting it when absent
    /// (``SignatureBatchAssignments``); a refused request reads it then
    /// (``assignment(bundleId:experimentId:userKey:)``). On PostgreSQL a read inside the
    /// batch would be a round trip on the serial writer: the request reads it, as after a
    /// change of weights.
    func running(bundleId: String, placementId: String, userKey: String) throws -> RunningExperiment? {
        guard let experiment = try mirror.running(bundleId: bundleId, placementId: placementId) else { return nil }
        return try running(experiment, userKey: userKey)
    }

    func placementAndRunning(bundleId: String, placementId: String,
                             userKey: String) throws -> (placement: StoredRule<Placement>?, running: RunningExperiment?) {
        let (placement, experiment) = try mirror.placementAndRunning(bundleId: bundleId, placementId: placementId)
        guard let placement, placement.rule.enabled, let experiment else { return (placement, nil) }
        return (placement, try running(experiment, userKey: userKey))
    }

    /// `experiment`, running, with the user's assignment (or not read: see ``running(bundleId:placementId:userKey:)``).
    private func running(_ experiment: StoredRule<Experiment>, userKey: String) throws -> RunningExperiment {
        let bundleId = experiment.rule.bundleId
        guard database.statementsAreRoundTrips || experiment.rule.weightPeriods.count > 1 else {
            return RunningExperiment(experiment: experiment, assignment: nil, assignmentRead: false)
        }
        let assignment = try assignment(bundleId: bundleId, experimentId: experiment.rule.experimentId, userKey: userKey)
        return RunningExperiment(experiment: experiment, assignment: assignment)
    }

    func assignment(bundleId: String, experimentId: String, userKey: String) throws -> ExperimentAssignment? {
        let key = SQLExperimentAssignments.Key(bundleId: bundleId, experimentId: experimentId, userKey: userKey)
        return try database.withReader { db in try SQLExperimentAssignments.stored(key, db) }
    }

    func record(_ assignment: ExperimentAssignment, previous: ExperimentAssignment?) throws -> ExperimentAssignment {
        try database.inTransaction { db in
            let key = SQLExperimentAssignments.Key(assignment)
            if previous == nil {
                if try SQLExperimentAssignments.insertOne(assignment, db) { return assignment }
                return try SQLExperimentAssignments.stored(key, db) ?? assignment
            }
            try SQLExperimentAssignments.mark(key, eligible: assignment.eligible, signedAt: assignment.firstSignedAt, db)
            return assignment
        }
    }

    func assignments(bundleId: String, experimentId: String) throws -> [ExperimentAssignment] {
        try database.withReader { db in
            try db.select("""
                SELECT user_key, arm_id, weight_period, environment, assigned_at_ms, eligible, first_signed_at_ms
                FROM experiment_assignments WHERE bundle_id = ? AND experiment_id = ?
                """, [.text(bundleId), .text(experimentId)]) { row in
                ExperimentAssignment(bundleId: bundleId, experimentId: experimentId, userKey: row.text(0), armId: row.text(1),
                                     weightPeriod: row.int(2), environment: row.text(3), assignedAt: row.int64(4),
                                     eligible: row.int64(5) != 0, firstSignedAt: row.optionalInt64(6))
            }
        }
    }

    func revenuePerUser(bundleId: String, environment: String, from: Int64, to: Int64) throws -> [String: [Int64]] {
        var sums: [String: [String: Int64]] = [:]
        try database.withReader { db in
            _ = try db.select("""
                SELECT user_id, original_transaction_id, price, currency FROM transactions
                WHERE bundle_id = ? AND environment = ? AND purchase_ms >= ? AND purchase_ms < ?
                    AND revocation_ms IS NULL AND price IS NOT NULL AND price > 0
                """, [.text(bundleId), .text(environment), .integer(from), .integer(to)]) { row in
                let user = row.optionalText(0).map { $0.lowercased() } ?? "transaction:" + row.text(1)
                let currency = row.optionalText(3) ?? "XXX"
                sums[currency, default: [:]][user, default: 0] += row.int64(2)
            }
        }
        return sums.mapValues { Array($0.values) }
    }

    func forEachAssignedUser(bundleId: String, experimentId: String, environment: String,
                             _ body: (_ assignment: ExperimentAssignment, _ periods: [ExperimentPeriod]) throws -> Void) throws {
        try database.withReader(.audit) { db in
            // SQLite merges two ordered cursors; PostgreSQL's planner joins well by itself.
            if let sqlite = db as? SQLiteConnection {
                try SQLiteAssignedUsers.forEach(sqlite, bundleId: bundleId, experimentId: experimentId, environment: environment, body)
            } else {
                try SQLAssignedUsers.forEach(db, bundleId: bundleId, experimentId: experimentId, environment: environment, body)
            }
        }
    }

    func matchedRedemptions(bundleId: String, environment: String, offerIds: [String]) throws -> [(userKeys: [String], offerId: String, at: Int64)] {
        guard !offerIds.isEmpty else { return [] }
        return try database.withReader { db in
            try db.select("""
                SELECT app_account_token, original_transaction_id, offer_id, purchase_ms FROM offer_redemptions
                WHERE bundle_id = ? AND environment = ? AND signature_nonce IS NOT NULL
                    AND offer_id IN (\(Array(repeating: "?", count: offerIds.count).joined(separator: ", ")))
                """, [.text(bundleId), .text(environment)] + offerIds.map { .text($0) }) { row in
                var keys = ["transaction:" + row.text(1)]
                if let token = row.optionalText(0), !token.isEmpty { keys.append(token.lowercased()) }
                return (userKeys: keys, offerId: row.text(2), at: row.int64(3))
            }
        }
    }
}

extension SQLExperimentStore where Database == PostgreSQLDatabase {
    /// Keeps the placements and experiments in memory in step with changes made through other
    /// instances (a listener thread) until ``close()``.
    func followChanges() {
        mirror.followChanges()
    }
}
