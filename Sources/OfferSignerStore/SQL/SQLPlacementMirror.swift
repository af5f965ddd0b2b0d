import Foundation
import OfferSignerCore
import Synchronization

/// Placements and experiments (the managed rules of kinds `placement` and `experiment`) and
/// which experiment runs on each placement (`experiment_placements`), mirrored in memory so a
/// placement request reads none of them from the database: what ``SQLOfferStore`` does for
/// offer rules, the same way. (Which experiment runs changes only with an experiment's change,
/// in its transaction, so it moves with `managed_rule_changes` like the rules themselves.)
///
/// The mirror follows every change:
///
/// - made in this process, through any store on any database: each commits, then bumps
///   ``ManagedRuleChanges/generation``; a read that finds the generation moved reloads
///   before it answers, so a change is in force here once its call returns;
/// - made by other processes: on SQLite a read checks `managed_rule_changes` at most once a
///   second (one caller a second claims the check); on PostgreSQL every change commits with a
///   `NOTIFY` on ``channel`` and a listener (``OfferChangeListener``) reloads when one arrives
///   and checks once a second besides, as for offers.
///
/// The mirror is loaded on first use, so a one-shot command that never asks reads nothing.
final class SQLPlacementMirror<Database: SQLDatabase>: Sendable {
    /// The `LISTEN`/`NOTIFY` channel of changes to managed rules.
    static var channel: String { "offer_signer_rule_changes" }

    private let database: Database
    private let mirror = ReadMostly(Mirror())
    /// How other processes' changes are learnt of.
    private let watch: MirrorChangeWatch

    /// A rule's app and ID.
    struct Key: Hashable, Sendable {
        let bundleId: String
        let ruleId: String
    }

    /// The rules in memory, the state of `managed_rule_changes` and the generation they reflect.
    private struct Mirror: Sendable {
        var placements: [Key: StoredRule<Placement>] = [:]
        /// The experiment running on each placement (keyed by the placement's ID): the row of
        /// `experiment_placements` read in the same snapshot as the experiments, whose
        /// experiment is running there.
        var running: [Key: StoredRule<Experiment>] = [:]
        var stamp = ChangeStamp.unread
        /// ``ManagedRuleChanges/generation`` when the snapshot was read; nil before the first load.
        var generation: UInt64?
    }

    init(database: Database, checksOnRead: Bool) {
        self.database = database
        watch = MirrorChangeWatch(checksOnRead: checksOnRead)
    }

    deinit {
        close()
    }

    /// Stops following changes.
    func close() {
        watch.stop()
    }

    /// The placement `placementId` of the app, enabled or not.
    func placement(bundleId: String, placementId: String) throws -> StoredRule<Placement>? {
        try current()
        return mirror.read { $0.placements[Key(bundleId: bundleId, ruleId: placementId)] }
    }

    /// The experiment running on the placement `placementId` of the app, if one runs.
    func running(bundleId: String, placementId: String) throws -> StoredRule<Experiment>? {
        try current()
        return mirror.read { $0.running[Key(bundleId: bundleId, ruleId: placementId)] }
    }

    /// The placement `placementId` of the app (enabled or not) and the experiment running on
    /// it, from one look at the mirror.
    func placementAndRunning(bundleId: String, placementId: String) throws -> (StoredRule<Placement>?, StoredRule<Experiment>?) {
        try current()
        let key = Key(bundleId: bundleId, ruleId: placementId)
        return mirror.read { ($0.placements[key], $0.running[key]) }
    }

    /// Brings the mirror up to date when a change of this process moved the generation, when
    /// it was never loaded, or (where reads check) when the once-a-second check is due.
    private func current() throws {
        let generation = ManagedRuleChanges.generation.load(ordering: .acquiring)
        if mirror.read({ $0.generation }) != generation {
            try refresh(force: true)
            return
        }
        guard watch.claimCheck() else { return }
        try refresh(force: false)
    }

    /// Reloads when `managed_rule_changes` differs from what the mirror reflects, or always
    /// when `force`d.
    private func refresh(force: Bool) throws {
        // Read before the snapshot: a change that bumps it later is in a later snapshot.
        let generation = ManagedRuleChanges.generation.load(ordering: .acquiring)
        try database.withReader { db in
            let stamp = try ChangeStamp.read(db, table: "managed_rule_changes")
            guard force || stamp != mirror.read({ $0.stamp }) else { return }
            var placements: [Key: StoredRule<Placement>] = [:]
            var experiments: [Key: StoredRule<Experiment>] = [:]
            _ = try db.select("""
                SELECT \(RuleCoding.managedRuleColumns), kind, bundle_id, rule_id FROM managed_rules WHERE kind = ? OR kind = ?
                """, [.text(Placement.kind), .text(Experiment.kind)]) { row in
                let key = Key(bundleId: row.text(5), ruleId: row.text(6))
                if row.text(4) == Placement.kind {
                    placements[key] = try RuleCoding.storedRule(Placement.self, row)
                } else {
                    experiments[key] = try RuleCoding.storedRule(Experiment.self, row)
                }
            }
            var running: [Key: StoredRule<Experiment>] = [:]
            _ = try db.select("SELECT bundle_id, placement_id, experiment_id FROM experiment_placements", []) { row in
                let placementId = row.text(1)
                if let experiment = experiments[Key(bundleId: row.text(0), ruleId: row.text(2))], experiment.rule.status == .running,
                   experiment.rule.definition.placement == placementId {
                    running[Key(bundleId: row.text(0), ruleId: placementId)] = experiment
                }
            }
            mirror.write { mirror in
                // Changes only grow: a slower refresh must not install an older snapshot.
                guard stamp.count >= mirror.stamp.count else { return }
                mirror.placements = placements
                mirror.running = running
                mirror.stamp = stamp
                mirror.generation = max(mirror.generation ?? 0, generation)
            }
        }
    }
}

extension SQLPlacementMirror where Database == PostgreSQLDatabase {
    /// Follows changes made through other instances (a listener thread) until `close()`.
    func followChanges() {
        let listener = OfferChangeListener(database: database, channel: Self.channel) { [weak self] notified in
            try self?.refresh(force: notified)
        }
        watch.follow(listener)
    }
}

/// Changes to managed rules committed by this process: every store bumps ``generation`` once
/// its change has committed, so every placement mirror of the process reloads before its next
/// answer.
enum ManagedRuleChanges {
    static let generation = Atomic<UInt64>(0)

    /// Call after a change to managed rules has committed (or may have).
    static func committed() {
        generation.add(1, ordering: .releasing)
    }
}
