import Foundation
@testable import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: experiments, the running experiment of a placement, sticky assignments")
    struct ExperimentStoreContract {
        static let bundle = "com.example.app"
        static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

        static func definition(_ id: String = "exp1", placement: String = "cancel_flow") -> ExperimentDefinition {
            ExperimentDefinition(experimentId: id, bundleId: bundle, placement: placement,
                                 arms: [ExperimentArm(armId: "control", offerId: nil, weight: 1),
                                        ExperimentArm(armId: "half", offerId: "half", weight: 1)],
                                 metric: .retained, horizonDays: 30)
        }

        /// Starts (or otherwise changes) `id` through `change`, as the application does.
        static func set(_ store: any ExperimentStore, id: String = "exp1", placement: String = "cancel_flow",
                        _ status: ExperimentStatus, weights: [Double]? = nil) throws -> StoredRule<Experiment>? {
            try store.change(bundleId: bundle, experimentId: id, by: "m", at: t0) { context in
                var experiment = context.existing?.rule ?? Experiment(definition: definition(id, placement: placement))
                experiment.status = status
                if status == .running, experiment.weightPeriods.isEmpty {
                    experiment.weightPeriods = [ExperimentWeightPeriod(from: t0, weights: [1, 1])]
                }
                if let weights {
                    for index in weights.indices { experiment.definition.arms[index].weight = weights[index] }
                    experiment.weightPeriods.append(ExperimentWeightPeriod(from: t0, weights: weights))
                }
                return ExperimentChange(experiment: experiment)
            }
        }

        static func assignment(_ user: String, arm: String, eligible: Bool = false, signedAt: Int64? = nil) -> ExperimentAssignment {
            ExperimentAssignment(bundleId: bundle, experimentId: "exp1", userKey: user, armId: arm, weightPeriod: 0, environment: "Production",
                                 assignedAt: t0.milliseconds, eligible: eligible, firstSignedAt: signedAt)
        }

        @Test("a running experiment holds its placement (one per placement, by the key), found with a user's assignment in one read",
              arguments: Engine.allCases)
        func runningAndAssignments(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            var stores = try database.open()
            let experiments = stores.experiments
            #expect(try Self.set(experiments, .draft)?.version == 1)
            #expect(try experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") == nil, "a draft holds nothing")
            #expect(try Self.set(experiments, .running)?.rule.status == .running)
            let found = try #require(try experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1"))
            #expect(found.experiment.rule.experimentId == "exp1" && found.assignment == nil && found.experiment.version == 2)
            #expect(found.assignmentRead == (engine != .sqlite),
                    "one weight period: SQLite leaves the assignment to the signature's commit, PostgreSQL reads it")
            #expect(throws: (any Error).self, "a second running experiment on the placement breaks the key") {
                try Self.set(experiments, id: "exp2", .running)
            }
            #expect(try experiments.experiment(bundleId: Self.bundle, experimentId: "exp2") == nil, "nothing of the failed change is kept")

            // Sticky: the first record stands; a second first record (another instance at once) changes nothing.
            #expect(try experiments.record(Self.assignment("u1", arm: "half"), previous: nil).armId == "half")
            #expect(try experiments.record(Self.assignment("u1", arm: "control", eligible: true), previous: nil).armId == "half",
                    "the assignment that stands is told")
            var mine = try #require(try experiments.assignment(bundleId: Self.bundle, experimentId: "exp1", userKey: "u1"))
            #expect(mine.armId == "half" && !mine.eligible && mine.firstSignedAt == nil && mine.environment == "Production")
            // Eligible and signed are set once and never undone.
            try experiments.record(Self.assignment("u1", arm: "half", eligible: true, signedAt: 5), previous: mine)
            try experiments.record(Self.assignment("u1", arm: "half", eligible: false, signedAt: 9), previous: mine)
            mine = try #require(try experiments.assignment(bundleId: Self.bundle, experimentId: "exp1", userKey: "u1"))
            #expect(mine.eligible && mine.firstSignedAt == 5)
            // Weights change: the recorded arm stays, read with the running experiment on both engines (a draw may differ now).
            #expect(try Self.set(experiments, .running, weights: [1, 0])?.rule.weightPeriods.count == 2)
            let reread = try #require(try experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1"))
            #expect(reread.assignmentRead && reread.assignment?.armId == "half")
            try experiments.record(Self.assignment("u2", arm: "control"), previous: nil)

            // Across a restart.
            stores.close()
            stores = try database.open()
            defer { stores.close() }
            let reopened = stores.experiments
            #expect(try reopened.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1")?.assignment?.armId == "half")
            #expect(try reopened.assignments(bundleId: Self.bundle, experimentId: "exp1").map(\.userKey).sorted() == ["u1", "u2"])

            // Stopped: the placement is free, the assignments are kept.
            #expect(try Self.set(reopened, .stopped)?.rule.status == .stopped)
            #expect(try reopened.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1") == nil)
            #expect(try Self.set(reopened, id: "exp2", .running)?.rule.status == .running)
            #expect(try reopened.assignments(bundleId: Self.bundle, experimentId: "exp1").count == 2)
            let changes = try reopened.changes(bundleId: Self.bundle, experimentId: "exp1", afterId: 0, limit: 10)
            #expect(changes.map { $0.after?.status } == [.draft, .running, .running, .stopped])
        }

        static func record(_ nonce: String, user: String, at timestamp: Int64, offer: String = "half") -> SignatureRecord {
            SignatureRecord(nonce: nonce, format: .legacy, bundleId: bundle, productId: "pro", offerId: offer, userId: user, keyId: "K",
                            timestamp: timestamp, signature: "s", apiKeyName: "c", requestId: "r", recordedAt: timestamp)
        }

        static func stored(_ store: any ExperimentStore, _ user: String) throws -> ExperimentAssignment? {
            try store.assignment(bundleId: bundle, experimentId: "exp1", userKey: user)
        }

        @Test("an assignment the request did not read is read by the signature's commit: inserted when absent (told newly assigned), marked or left when recorded with the arm, nothing appended when recorded with another",
              arguments: Engine.allCases)
        func unreadAssignmentInCommit(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let experiments = stores.experiments
            let log = stores.signatures
            _ = try Self.set(experiments, .running)
            let updates = try Self.countAssignmentUpdates(database)
            @Sendable func unread(_ user: String, _ arm: String) -> SignedAssignment {
                SignedAssignment(assignment: Self.assignment(user, arm: arm), previous: nil, previousRead: false)
            }
            // A new user: inserted, eligible and signed, told newly assigned.
            guard case .appended(_, let inserted) = try log.append(Self.record("n1", user: "u1", at: 1_000), quota: nil,
                                                                   assigning: unread("u1", "half")) else {
                Issue.record("not appended"); return
            }
            #expect(inserted)
            let u1 = try #require(try Self.stored(experiments, "u1"))
            #expect(u1.armId == "half" && u1.eligible && u1.firstSignedAt == 1_000)
            // The same user again (a returning user, not read): appended, not newly assigned, nothing rewritten.
            guard case .appended(_, let again) = try log.append(Self.record("n2", user: "u1", at: 2_000), quota: nil,
                                                                assigning: unread("u1", "half")) else {
                Issue.record("not appended"); return
            }
            #expect(!again)
            #expect(try updates() == 0)
            #expect(try Self.stored(experiments, "u1")?.firstSignedAt == 1_000)
            // Recorded before with the arm (refused then), not eligible: marked eligible and signed, not newly assigned.
            try experiments.record(Self.assignment("u2", arm: "half"), previous: nil)
            guard case .appended(_, let marked) = try log.append(Self.record("n3", user: "u2", at: 3_000), quota: nil,
                                                                 assigning: unread("u2", "half")) else {
                Issue.record("not appended"); return
            }
            let u2 = try #require(try Self.stored(experiments, "u2"))
            #expect(!marked && u2.eligible && u2.firstSignedAt == 3_000)
            #expect(try updates() == 1)
            // Recorded with another arm: nothing appended, the stored one told.
            let other = try log.append(Self.record("n4", user: "u1", at: 4_000, offer: "other"), quota: nil, assigning: unread("u1", "control"))
            guard case .assignedElsewhere(let stands) = other else { Issue.record("appended: \(other)"); return }
            #expect(stands.armId == "half")
            #expect(try log.signature(nonce: "n4") == nil)
            // Several requests of one new user in one batch: one inserted, one told newly assigned.
            let results = Mutex<[Bool]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if case .appended(_, let newly)? = try? log.append(Self.record("many-\(index)", user: "u3", at: 10_000 + Int64(index)), quota: nil,
                                                                   assigning: unread("u3", "half")) {
                    results.withLock { $0.append(newly) }
                }
            }
            #expect(results.withLock { $0.count } == 8 && results.withLock { $0.filter { $0 }.count } == 1)
            #expect(try updates() == 1)
            #expect(try experiments.assignments(bundleId: Self.bundle, experimentId: "exp1").map(\.userKey).sorted() == ["u1", "u2", "u3"])
        }

        @Test("the signature's commit records the assignment: a new user's arm signed at the record's time, a recorded one marked, kept unsigned when the quota refuses the record; a user assigned to another arm first gets no record",
              arguments: Engine.allCases)
        func assignedWithSignature(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let experiments = stores.experiments
            let log = stores.signatures
            _ = try Self.set(experiments, .running)

            // A new user: the record and the assignment, eligible and signed at the record's timestamp.
            let first = try log.append(Self.record("n1", user: "u1", at: 1_000), quota: nil,
                                       assigning: SignedAssignment(assignment: Self.assignment("u1", arm: "half"), previous: nil))
            guard case .appended(let logged, _) = first else { Issue.record("not appended: \(first)"); return }
            #expect(logged.record.nonce == "n1" && logged.sequence == 1)
            let u1 = try #require(try Self.stored(experiments, "u1"))
            #expect(u1.armId == "half" && u1.eligible && u1.firstSignedAt == 1_000)

            // Drawn under other weights, after the first assignment committed: nothing appended, the stored one told.
            let other = try log.append(Self.record("n2", user: "u1", at: 2_000, offer: "other"), quota: nil,
                                       assigning: SignedAssignment(assignment: Self.assignment("u1", arm: "control"), previous: nil))
            guard case .assignedElsewhere(let stands) = other else { Issue.record("appended: \(other)"); return }
            #expect(stands.armId == "half" && stands.firstSignedAt == 1_000)
            #expect(try log.signature(nonce: "n2") == nil && log.verifyIntegrity().records == 1)
            // The same draw (a concurrent first request of the same weights): appended, the first signature time kept.
            let same = try log.append(Self.record("n3", user: "u1", at: 3_000), quota: nil,
                                      assigning: SignedAssignment(assignment: Self.assignment("u1", arm: "half"), previous: nil))
            guard case .appended = same else { Issue.record("not appended: \(same)"); return }
            #expect(try Self.stored(experiments, "u1")?.firstSignedAt == 1_000)

            // Recorded before (refused then), signed now: marked eligible and signed in the record's commit.
            try experiments.record(Self.assignment("u2", arm: "half"), previous: nil)
            let previous = try #require(try Self.stored(experiments, "u2"))
            #expect(!previous.eligible && previous.firstSignedAt == nil)
            let marked = try log.append(Self.record("n4", user: "u2", at: 4_000), quota: nil,
                                        assigning: SignedAssignment(assignment: previous, previous: previous))
            guard case .appended = marked else { Issue.record("not appended: \(marked)"); return }
            let u2 = try #require(try Self.stored(experiments, "u2"))
            #expect(u2.eligible && u2.firstSignedAt == 4_000)

            // The quota refuses the record: the assignment is kept (intention to treat), eligible, not signed.
            _ = try log.append(Self.record("n5", user: "u3", at: 5_000), quota: nil)
            #expect(throws: SignatureLogError.self) {
                try log.append(Self.record("n6", user: "u3", at: 6_000), quota: SignatureQuota(maxCount: 1),
                               assigning: SignedAssignment(assignment: Self.assignment("u3", arm: "half"), previous: nil))
            }
            let u3 = try #require(try Self.stored(experiments, "u3"))
            #expect(u3.armId == "half" && u3.eligible && u3.firstSignedAt == nil)
            #expect(try log.signature(nonce: "n6") == nil)
        }

        /// Counts the updates of `experiment_assignments` (a trigger on the test's database) from now on.
        static func countAssignmentUpdates(_ database: EngineDatabase) throws -> () throws -> Int {
            try database.execute(database.engine == .sqlite ? """
                CREATE TABLE assignment_updates (n INTEGER);
                CREATE TRIGGER assignment_updated AFTER UPDATE ON experiment_assignments BEGIN INSERT INTO assignment_updates VALUES (1); END
                """ : """
                CREATE TABLE assignment_updates (n BIGINT);
                CREATE FUNCTION assignment_updated() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN INSERT INTO assignment_updates VALUES (1); RETURN NULL; END $$;
                CREATE TRIGGER assignment_updated AFTER UPDATE ON experiment_assignments FOR EACH ROW EXECUTE FUNCTION assignment_updated()
                """)
            return { Int(try database.text("SELECT CAST(COUNT(*) AS TEXT) FROM assignment_updates")) ?? -1 }
        }

        @Test("a user's request whose assignment is already eligible and signed writes nothing more to it: after the first's commit, or in its batch",
              arguments: Engine.allCases)
        func signedAssignmentNotRewritten(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            _ = try Self.set(stores.experiments, .running)
            let updates = try Self.countAssignmentUpdates(database)
            let new = SignedAssignment(assignment: Self.assignment("u1", arm: "half"), previous: nil)
            _ = try log.append(Self.record("n1", user: "u1", at: 1_000), quota: nil, assigning: new)
            // The user's second request read no assignment (the first had not committed): appended, nothing rewritten.
            guard case .appended = try log.append(Self.record("n2", user: "u1", at: 2_000), quota: nil, assigning: new) else {
                Issue.record("not appended"); return
            }
            #expect(try updates() == 0)
            #expect(try Self.stored(stores.experiments, "u1")?.firstSignedAt == 1_000)
            // Many first requests of one user at once (some in one batch): one insert, no update.
            DispatchQueue.concurrentPerform(iterations: 16) { index in
                _ = try? log.append(Self.record("many-\(index)", user: "u2", at: 10_000 + Int64(index)), quota: nil,
                                    assigning: SignedAssignment(assignment: Self.assignment("u2", arm: "half"), previous: nil))
            }
            #expect(try log.verifyIntegrity().records == 18)
            #expect(try updates() == 0)
            let u2 = try #require(try Self.stored(stores.experiments, "u2"))
            #expect(u2.eligible && u2.firstSignedAt != nil)
            // A recorded assignment not yet signed is still marked by its first signature.
            try stores.experiments.record(Self.assignment("u3", arm: "half"), previous: nil)
            let u3 = try #require(try Self.stored(stores.experiments, "u3"))
            _ = try log.append(Self.record("n3", user: "u3", at: 3_000), quota: nil, assigning: SignedAssignment(assignment: u3, previous: u3))
            #expect(try updates() == 1)
            #expect(try Self.stored(stores.experiments, "u3")?.firstSignedAt == 3_000)
        }

        @Test("concurrent first requests of one user drawn into different arms: one arm stands; every record appended is of it",
              arguments: Engine.allCases)
        func concurrentFirstRequests(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            _ = try Self.set(stores.experiments, .running)
            let outcomes = LockedArray<(arm: String, result: Result<AssignedAppend, any Error>)>()
            DispatchQueue.concurrentPerform(iterations: 24) { index in
                let arm = index % 2 == 0 ? "half" : "control"
                do {
                    outcomes.append((arm, .success(try log.append(
                        Self.record("race-\(index)", user: "racer", at: 10_000 + Int64(index), offer: arm), quota: nil,
                        assigning: SignedAssignment(assignment: Self.assignment("racer", arm: arm), previous: nil)))))
                } catch {
                    outcomes.append((arm, .failure(error)))
                }
            }
            let stands = try #require(try Self.stored(stores.experiments, "racer"))
            let results = outcomes.values
            #expect(results.count == 24)
            var appended = 0
            var newlyAssigned = 0
            for (arm, result) in results {
                switch result {
                case .success(.appended(let logged, let inserted)):
                    appended += 1
                    if inserted { newlyAssigned += 1 }
                    #expect(arm == stands.armId && logged.record.offerId == stands.armId, "a record of the arm that does not stand")
                case .success(.assignedElsewhere(let stored)):
                    #expect(arm != stands.armId && stored.armId == stands.armId)
                case .failure(let error):
                    Issue.record("append failed: \(error)")
                }
            }
            #expect(appended == 12, "every request of the standing arm's draw is signed")
            #expect(newlyAssigned == 1, "one commit inserted the assignment; the others found it")
            #expect(try log.verifyIntegrity().records == appended)
            #expect(try stores.experiments.assignments(bundleId: Self.bundle, experimentId: "exp1").count == 1)
            #expect(stands.eligible && stands.firstSignedAt != nil)
        }

        @Test("a change and the placement it changes are one transaction, each recorded", arguments: Engine.allCases)
        func placementChange(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            _ = try stores.rules.put(Placement(placementId: "cancel_flow", bundleId: Self.bundle, offerIds: ["free", "half"]), by: "m", at: Self.t0)
            _ = try Self.set(stores.experiments, .running)
            _ = try stores.experiments.change(bundleId: Self.bundle, experimentId: "exp1", by: "n", at: Self.t0) { context in
                var experiment = try #require(context.existing?.rule)
                experiment.status = .stopped
                #expect(try context.runningOn("cancel_flow") == "exp1")
                var placement = try #require(try context.placement("cancel_flow")?.rule)
                placement.offerIds = ["half", "free"]
                return ExperimentChange(experiment: experiment, placement: placement)
            }
            let placement = try #require(try stores.rules.rule(Placement.self, bundleId: Self.bundle, ruleId: "cancel_flow"))
            #expect(placement.rule.offerIds == ["half", "free"] && placement.version == 2)
            #expect(try stores.rules.changes(Placement.self, bundleId: Self.bundle, ruleId: "cancel_flow", afterId: 0, limit: 10).last?.apiKeyName == "n")
        }

        @Test("revenue per paying user of the app's transactions, per currency, refunds and other apps left out", arguments: Engine.allCases)
        func revenue(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            #expect(try stores.experiments.revenuePerUser(bundleId: Self.bundle, environment: "Production", from: 0, to: .max).isEmpty)
        }
    }
}

@Suite("A stored JWS's currency, read without parsing the whole payload")
struct SignedPayloadCurrencyTests {
    static func jws(_ payload: String) -> String {
        "eyJhbGciOiJFUzI1NiJ9." + Data(payload.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "") + ".c2ln"
    }

    @Test("the member's three letters; another shape falls back to parsing; nothing for no member or no JWS",
          arguments: [
            (#"{"price":990,"currency":"EUR","x":1}"#, "EUR"),
            (#"{"currency" : "JPY"}"#, "JPY"),
            (#"{"note":"currency","currency":"USD"}"#, "USD"),
            (#"{"currency":"\u0055SD"}"#, "USD"),
            (#"{"price":990}"#, nil),
          ] as [(String, String?)])
    func currency(payload: String, expected: String?) {
        #expect(SignedPayloadField.currency(inJWS: Self.jws(payload)) == expected)
        #expect(SignedPayloadField.currency(inJWS: Self.jws(payload)) == SignedPayloadField.string("currency", inJWS: Self.jws(payload)))
    }

    @Test("the payload's base64url decoded as Base64URL decodes it, every length and byte")
    func decodesAsBase64URL() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Array(Base64URL.encode(bytes).utf8)
            #expect(text.withUnsafeBufferPointer { SignedPayloadField.decodeBase64URL($0) } == bytes)
        }
        #expect(Array("a.b".utf8).withUnsafeBufferPointer { SignedPayloadField.decodeBase64URL($0) } == nil)
    }

    @Test("not a JWS: nil")
    func notJWS() {
        #expect(SignedPayloadField.currency(inJWS: "seeded-by-bench") == nil)
        #expect(SignedPayloadField.currency(inJWS: "a.!!!.c") == nil)
    }
}
