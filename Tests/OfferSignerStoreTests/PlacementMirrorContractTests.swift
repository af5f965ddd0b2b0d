import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    /// Placements, experiments and which experiment runs on each placement kept in memory
    /// (``SQLPlacementMirror``): a placement request reads only the user's assignment, and
    /// still sees every change (at once in this process, within about a second of another's).
    @Suite("Storage contract: placements and experiments in memory follow every change")
    struct PlacementMirrorContract {
        typealias Experiments = ExperimentStoreContract
        static let bundle = Experiments.bundle
        static let t0 = Experiments.t0

        static func placement(_ offers: [String]) -> Placement {
            Placement(placementId: "cancel_flow", bundleId: bundle, offerIds: offers)
        }

        /// `first` and `second`: two openings of one database (two instances, or two stores of one process).
        static func open(_ database: EngineDatabase) throws -> (Stores, Stores) {
            (try database.open(), try database.open())
        }

        @Test("a placement or experiment changed through one opening is in force in another of the same process at once",
              arguments: Engine.allCases)
        func changeSeenAtOnce(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let (first, second) = try Self.open(database)
            defer { first.close(); second.close() }
            #expect(try second.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow") == nil, "loads the mirror")
            #expect(try second.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") == nil)
            _ = try first.rules.put(Self.placement(["free"]), by: "m", at: Self.t0)
            #expect(try second.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow")?.rule.offerIds == ["free"])
            _ = try first.rules.put(Self.placement(["half", "free"]), by: "m", at: Self.t0)
            #expect(try second.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow")?.rule.offerIds == ["half", "free"])
            _ = try first.rules.disable(Placement.self, bundleId: Self.bundle, ruleId: "cancel_flow", by: "m", at: Self.t0)
            #expect(try second.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow")?.rule.enabled == false)

            _ = try Experiments.set(first.experiments, .running)
            let running = try #require(try second.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1"))
            #expect(running.experiment.rule.weightPeriods.last?.weights == [1, 1] && running.experiment.version == 1)
            _ = try Experiments.set(first.experiments, .running, weights: [0, 1])
            let reweighted = try #require(try second.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1"))
            #expect(reweighted.experiment.rule.weightPeriods.last?.weights == [0, 1] && reweighted.experiment.version == 2,
                    "the new weights at once")
            try first.experiments.record(Experiments.assignment("u1", arm: "half"), previous: nil)
            #expect(try second.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1")?.assignment?.armId == "half")
            _ = try Experiments.set(first.experiments, .stopped)
            #expect(try second.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") == nil)
        }

        @Test("a placement changed by another process (behind the stores' back) is in force within 2 s: the once-a-second check, or NOTIFY",
              arguments: Engine.allCases)
        func changeSeenFromElsewhere(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            _ = try stores.rules.put(Self.placement(["free"]), by: "m", at: Self.t0)
            #expect(try stores.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow")?.rule.offerIds == ["free"])
            // What another process's change commits, this process not told.
            let json = try RuleCoding.encode(Self.placement(["half"]))
            try database.execute("""
                UPDATE managed_rules SET rule_json = '\(json)', version = 2 WHERE kind = 'placement' AND rule_id = 'cancel_flow';
                INSERT INTO managed_rule_changes (kind, bundle_id, rule_id, version, action, api_key_name, changed_at_ms, after_json)
                VALUES ('placement', '\(Self.bundle)', 'cancel_flow', 2, 'update', 'other', 0, '\(json)');
                \(engine == .postgreSQL ? "SELECT pg_notify('\(SQLPlacementMirror<PostgreSQLDatabase>.channel)', '');" : "")
                """)
            let start = ContinuousClock.now
            while try stores.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow")?.rule.offerIds != ["half"],
                  ContinuousClock.now - start < .seconds(60) {
                Thread.sleep(forTimeInterval: 0.02)
            }
            let seenAfter = ContinuousClock.now - start
            #expect(try stores.experiments.placement(bundleId: Self.bundle, placementId: "cancel_flow")?.rule.offerIds == ["half"])
            #expect(seenAfter < .seconds(2), "seen after \(seenAfter)")
        }

        /// Waits (up to 60 s) until `done`; how long it took.
        static func waited(_ done: () throws -> Bool) rethrows -> Duration {
            let start = ContinuousClock.now
            while try !done(), ContinuousClock.now - start < .seconds(60) {
                Thread.sleep(forTimeInterval: 0.02)
            }
            return ContinuousClock.now - start
        }

        @Test("which experiment runs on a placement is followed as the rules are: a stop and a start by another process are in force within 2 s",
              arguments: Engine.allCases)
        func runningFollowedFromElsewhere(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let started = try #require(try Experiments.set(stores.experiments, .running))
            #expect(try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1")?.experiment == started)
            let notify = engine == .postgreSQL ? "SELECT pg_notify('\(SQLPlacementMirror<PostgreSQLDatabase>.channel)', '');" : ""
            // Stopped by another process (this one not told): exp1 stopped, its placement released, the change recorded.
            var stopped = started.rule
            stopped.status = .stopped
            let stoppedJSON = try RuleCoding.encode(stopped)
            try database.execute("""
                UPDATE managed_rules SET rule_json = '\(stoppedJSON)', version = 3 WHERE kind = 'experiment' AND rule_id = 'exp1';
                DELETE FROM experiment_placements;
                INSERT INTO managed_rule_changes (kind, bundle_id, rule_id, version, action, api_key_name, changed_at_ms, after_json)
                VALUES ('experiment', '\(Self.bundle)', 'exp1', 3, 'update', 'other', 0, '\(stoppedJSON)');
                \(notify)
                """)
            let stopSeen = try Self.waited {
                try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") == nil
            }
            #expect(try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") == nil)
            #expect(stopSeen < .seconds(2), "stop seen after \(stopSeen)")
            // Then exp2 started there by another process.
            var other = Experiment(definition: Experiments.definition("exp2"))
            other.status = .running
            other.weightPeriods = [ExperimentWeightPeriod(from: Self.t0, weights: [0, 1])]
            let otherJSON = try RuleCoding.encode(other)
            try database.execute("""
                INSERT INTO managed_rules (kind, bundle_id, rule_id, rule_json, version, created_at_ms, updated_at_ms)
                VALUES ('experiment', '\(Self.bundle)', 'exp2', '\(otherJSON)', 1, 0, 0);
                INSERT INTO experiment_placements (bundle_id, placement_id, experiment_id) VALUES ('\(Self.bundle)', 'cancel_flow', 'exp2');
                INSERT INTO managed_rule_changes (kind, bundle_id, rule_id, version, action, api_key_name, changed_at_ms, after_json)
                VALUES ('experiment', '\(Self.bundle)', 'exp2', 1, 'create', 'other', 0, '\(otherJSON)');
                \(notify)
                """)
            let startSeen = try Self.waited {
                try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") != nil
            }
            let found = try #require(try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1"))
            #expect(found.experiment.rule.experimentId == "exp2" && found.experiment.rule.weightPeriods.last?.weights == [0, 1])
            #expect(startSeen < .seconds(2), "start seen after \(startSeen)")
        }

        @Test("a placement request reads at most the user's assignment: which experiment runs comes from memory, the assignment from the database each time (SQLite, one weight period: in the signature's commit)",
              arguments: Engine.allCases)
        func onlyTheAssignmentRead(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let started = try #require(try Experiments.set(stores.experiments, .running))
            #expect(try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1")?.assignment == nil)
            // Behind the mirror's back, no change recorded: the placement's row gone, an assignment written.
            try database.execute("""
                DELETE FROM experiment_placements;
                INSERT INTO experiment_assignments (bundle_id, experiment_id, user_key, arm_id, weight_period, environment, assigned_at_ms,
                    eligible, first_signed_at_ms)
                VALUES ('\(Self.bundle)', 'exp1', 'u1', 'half', 0, 'Production', \(Self.t0.milliseconds), 1, 7)
                """)
            let found = try #require(try stores.experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1"),
                                     "no read of experiment_placements")
            #expect(found.experiment == started)
            let stored = Experiments.assignment("u1", arm: "half", eligible: true, signedAt: 7)
            if engine == .sqlite {
                // One weight period: left to the signature's commit (which reads it on the writer), or read when asked.
                #expect(!found.assignmentRead && found.assignment == nil)
            } else {
                #expect(found.assignmentRead && found.assignment == stored, "the assignment read from the database")
            }
            #expect(try stores.experiments.assignment(bundleId: Self.bundle, experimentId: "exp1", userKey: "u1") == stored,
                    "the assignment read from the database")
        }
    }
}
