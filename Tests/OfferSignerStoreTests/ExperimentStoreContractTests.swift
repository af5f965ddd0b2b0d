import Foundation
@testable import OfferSignerCore
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
            #expect(throws: (any Error).self, "a second running experiment on the placement breaks the key") {
                try Self.set(experiments, id: "exp2", .running)
            }
            #expect(try experiments.experiment(bundleId: Self.bundle, experimentId: "exp2") == nil, "nothing of the failed change is kept")

            // Sticky: the first record stands; a second first record (another instance at once) changes nothing.
            try experiments.record(Self.assignment("u1", arm: "half"), previous: nil)
            try experiments.record(Self.assignment("u1", arm: "control", eligible: true), previous: nil)
            var mine = try #require(try experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1")?.assignment)
            #expect(mine.armId == "half" && !mine.eligible && mine.firstSignedAt == nil && mine.environment == "Production")
            // Eligible and signed are set once and never undone.
            try experiments.record(Self.assignment("u1", arm: "half", eligible: true, signedAt: 5), previous: mine)
            try experiments.record(Self.assignment("u1", arm: "half", eligible: false, signedAt: 9), previous: mine)
            mine = try #require(try experiments.running(bundleId: Self.bundle, placementId: "cancel_flow", userKey: "u1")?.assignment)
            #expect(mine.eligible && mine.firstSignedAt == 5)
            // Weights change: the recorded arm stays.
            #expect(try Self.set(experiments, .running, weights: [1, 0])?.rule.weightPeriods.count == 2)
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

    @Test("not a JWS: nil")
    func notJWS() {
        #expect(SignedPayloadField.currency(inJWS: "seeded-by-bench") == nil)
        #expect(SignedPayloadField.currency(inJWS: "a.!!!.c") == nil)
    }
}
