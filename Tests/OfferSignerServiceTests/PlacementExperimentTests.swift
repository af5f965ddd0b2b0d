import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// `POST /v1/offers/placement` while an experiment runs on the placement: sticky assignment
/// before eligibility, the arm's offer only, intention to treat.
@Suite("POST /v1/offers/placement inside an experiment")
struct PlacementExperimentTests {
    static func arms(control: Double, half: Double, controlOffer: String = "null") -> String {
        #"[{"armId": "control", "offerId": \#(controlOffer), "weight": \#(control)}, {"armId": "half", "offerId": "half", "weight": \#(half)}]"#
    }

    /// The admin tests' environment plus an offer `lapsed_only` no unknown user is eligible
    /// for, and experiment `exp1` running on `cancel_flow` with the given weights.
    static func running(control: Double, half: Double, controlOffer: String = "null") throws -> TestEnvironment {
        let env = try ExperimentAdminTests.environment()
        try env.putOffer(TestEnvironment.demoRule("lapsed_only", eligibility: EligibilityCriteria(requireLapsed: true)))
        #expect(ExperimentAdminTests.put(env, "exp1", ExperimentAdminTests.body(arms: arms(control: control, half: half, controlOffer: controlOffer))).status == 201)
        #expect(ExperimentAdminTests.action(env, "exp1", "start").status == 200)
        return env
    }

    static func ask(_ env: TestEnvironment, _ user: String) -> TestResponse {
        PlacementSignTests.ask(env, placement: "cancel_flow", user: user)
    }

    static func assignments(_ env: TestEnvironment) throws -> [String: ExperimentAssignment] {
        Dictionary(uniqueKeysWithValues: try env.experiments.assignments(bundleId: TestEnvironment.bundleId, experimentId: "exp1").map { ($0.userKey, $0) })
    }

    @Test("the arm decides the offer; the answer names the experiment and the arm; the arm is recorded with the signature")
    func armDecides() throws {
        let env = try Self.running(control: 0, half: 1)
        let response = Self.ask(env, "user-1")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["offerId"] as? String == "half", "the placement lists free first; the arm says half")
        #expect(response.json["experimentId"] as? String == "exp1" && response.json["armId"] as? String == "half")
        #expect(response.json["placement"] as? String == "cancel_flow" && response.json["signature"] is String)
        let recorded = try #require(try Self.assignments(env)["user-1"])
        #expect(recorded.armId == "half" && recorded.eligible && recorded.firstSignedAt == (response.json["timestamp"] as? NSNumber)?.int64Value)
        #expect(env.metrics.render().contains(#"offer_signer_experiment_assignments_total{bundle_id="com.example.app",experiment_id="exp1",arm_id="half"} 1"#))
    }

    @Test("a user's later requests count no new assignment: signed again, or refused again by a no-offer arm (an assignment not read with the experiment is read before a refusal records it)")
    func returningCountedOnce() throws {
        let signed = try Self.running(control: 0, half: 1)
        let control = try Self.running(control: 1, half: 0)
        for _ in 0..<2 {
            #expect(Self.ask(signed, "user-1").status == 200)
            #expect(Self.ask(control, "user-2").code == "experiment_control")
        }
        #expect(signed.metrics.render().contains(#"offer_signer_experiment_assignments_total{bundle_id="com.example.app",experiment_id="exp1",arm_id="half"} 1"#))
        #expect(control.metrics.render().contains(#"offer_signer_experiment_assignments_total{bundle_id="com.example.app",experiment_id="exp1",arm_id="control"} 1"#))
        #expect(try Self.assignments(signed).count == 1 && Self.assignments(control).count == 1)
        #expect(try signed.signatureLog.verifyIntegrity().records == 2)
    }

    @Test("sticky: a later request, a change of weights and a new composition (a restart) keep the recorded arm; new users follow the new weights")
    func sticky() throws {
        let env = try Self.running(control: 0, half: 1)
        #expect(Self.ask(env, "user-1").json["armId"] as? String == "half")
        env.clock = .fixed(env.now + 60)
        let reweighted = ExperimentAdminTests.put(env, "exp1", ExperimentAdminTests.body(arms: Self.arms(control: 1, half: 0)))
        #expect(reweighted.status == 200, "\(reweighted.text)")
        #expect(Self.ask(env, "user-1").json["armId"] as? String == "half", "the recorded arm, not the new weights'")
        let newcomer = Self.ask(env, "user-2")
        #expect(newcomer.status == 403 && newcomer.code == "experiment_control" && newcomer.json["armId"] as? String == "control")
        let recorded = try Self.assignments(env)
        #expect(recorded["user-1"]?.weightPeriod == 0 && recorded["user-2"]?.weightPeriod == 1)
        #expect(recorded.count == 2, "one assignment per user, whatever the number of requests")
    }

    @Test("a no-offer arm: 403 experiment_control naming the experiment and arm, the user assigned, nothing signed")
    func control() throws {
        let env = try Self.running(control: 1, half: 0)
        let response = Self.ask(env, "user-1")
        #expect(response.status == 403 && response.code == "experiment_control", "\(response.text)")
        #expect(response.json["experimentId"] as? String == "exp1" && response.json["armId"] as? String == "control")
        #expect(response.json["placement"] as? String == "cancel_flow")
        #expect(try Self.assignments(env)["user-1"]?.armId == "control")
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("the arm's offer refused: 403 not_eligible with its reasons, no other offer of the placement tried, the assignment kept")
    func armRefused() throws {
        let env = try Self.running(control: 1, half: 0, controlOffer: #""lapsed_only""#)
        let response = Self.ask(env, "user-1")
        #expect(response.status == 403 && response.code == "not_eligible", "\(response.text)")
        #expect(response.json["experimentId"] as? String == "exp1" && response.json["armId"] as? String == "control")
        let offers = try #require(response.json["offers"] as? [[String: Any]])
        #expect(offers.map { $0["offerId"] as? String } == ["lapsed_only"], "free and half, the placement's offers, are not tried")
        let recorded = try #require(try Self.assignments(env)["user-1"])
        #expect(recorded.armId == "control" && !recorded.eligible && recorded.firstSignedAt == nil)
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("a user found assigned to another arm at the signature's commit (their other request, under other weights, committed first) is served that arm: nothing of the arm drawn is signed")
    func assignedMeanwhile() throws {
        let env = try Self.running(control: 1, half: 0)
        #expect(Self.ask(env, "user-1").code == "experiment_control")
        env.clock = .fixed(env.now + 60)
        #expect(ExperimentAdminTests.put(env, "exp1", ExperimentAdminTests.body(arms: Self.arms(control: 0, half: 1))).status == 200)
        // The request reads the user as not yet assigned, as one racing the first would: it draws half under the new weights.
        env.experiments = UnassignedReads(env.experiments)
        let response = Self.ask(env, "user-1")
        #expect(response.status == 403 && response.code == "experiment_control", "\(response.text)")
        #expect(response.json["armId"] as? String == "control")
        #expect(try env.signatureLog.verifyIntegrity().records == 0, "half's offer is not signed")
        let recorded = try Self.assignments(env)
        #expect(recorded.count == 1 && recorded["user-1"]?.armId == "control" && recorded["user-1"]?.weightPeriod == 0)
    }

    @Test("a refused request that finds another arm recorded first (the user's other request, under other weights) follows it")
    func refusedFollowsStanding() throws {
        let env = try Self.running(control: 0, half: 1)
        #expect(Self.ask(env, "user-1").json["armId"] as? String == "half")
        env.clock = .fixed(env.now + 60)
        #expect(ExperimentAdminTests.put(env, "exp1", ExperimentAdminTests.body(arms: Self.arms(control: 1, half: 0))).status == 200)
        // Read as not yet assigned, the request draws the no-offer control under the new weights; its commit finds half.
        env.experiments = UnassignedReads(env.experiments)
        let response = Self.ask(env, "user-1")
        #expect(response.status == 200 && response.json["armId"] as? String == "half", "\(response.text)")
        #expect(try env.signatureLog.verifyIntegrity().records == 2)
        let recorded = try Self.assignments(env)
        #expect(recorded.count == 1 && recorded["user-1"]?.armId == "half")
    }

    @Test("without a running experiment the placement picks as before; once stopped too")
    func stopped() throws {
        let env = try Self.running(control: 1, half: 0)
        #expect(Self.ask(env, "user-1").code == "experiment_control")
        #expect(ExperimentAdminTests.action(env, "exp1", "stop").status == 200)
        let after = Self.ask(env, "user-1")
        #expect(after.status == 200 && after.json["offerId"] as? String == "free" && after.json["experimentId"] == nil)
    }
}

/// An experiment store whose reads of the running experiment never find the user's assignment,
/// as a request racing the user's first one reads it before that one commits.
struct UnassignedReads: ExperimentStore {
    let store: any ExperimentStore

    init(_ store: any ExperimentStore) {
        self.store = store
    }

    func running(bundleId: String, placementId: String, userKey: String) throws -> RunningExperiment? {
        try store.running(bundleId: bundleId, placementId: placementId, userKey: userKey).map { running in
            var unassigned = running
            unassigned.assignment = nil
            return unassigned
        }
    }

    func assignment(bundleId: String, experimentId: String, userKey: String) throws -> ExperimentAssignment? {
        try store.assignment(bundleId: bundleId, experimentId: experimentId, userKey: userKey)
    }
    func experiment(bundleId: String, experimentId: String) throws -> StoredRule<Experiment>? {
        try store.experiment(bundleId: bundleId, experimentId: experimentId)
    }
    func placement(bundleId: String, placementId: String) throws -> StoredRule<Placement>? {
        try store.placement(bundleId: bundleId, placementId: placementId)
    }
    func experiments(bundleId: String?) throws -> [StoredRule<Experiment>] { try store.experiments(bundleId: bundleId) }
    func changes(bundleId: String?, experimentId: String?, afterId: Int64, limit: Int) throws -> [RuleChange<Experiment>] {
        try store.changes(bundleId: bundleId, experimentId: experimentId, afterId: afterId, limit: limit)
    }
    func change(bundleId: String, experimentId: String, by actor: String, at now: Date,
                _ decide: (ExperimentChangeContext) throws -> ExperimentChange?) throws -> StoredRule<Experiment>? {
        try store.change(bundleId: bundleId, experimentId: experimentId, by: actor, at: now, decide)
    }
    func record(_ assignment: ExperimentAssignment, previous: ExperimentAssignment?) throws -> ExperimentAssignment {
        try store.record(assignment, previous: previous)
    }
    func assignments(bundleId: String, experimentId: String) throws -> [ExperimentAssignment] {
        try store.assignments(bundleId: bundleId, experimentId: experimentId)
    }
    func revenuePerUser(bundleId: String, environment: String, from: Int64, to: Int64) throws -> [String: [Int64]] {
        try store.revenuePerUser(bundleId: bundleId, environment: environment, from: from, to: to)
    }
    func forEachAssignedUser(bundleId: String, experimentId: String, environment: String,
                             _ body: (_ assignment: ExperimentAssignment, _ periods: [ExperimentPeriod]) throws -> Void) throws {
        try store.forEachAssignedUser(bundleId: bundleId, experimentId: experimentId, environment: environment, body)
    }
    func matchedRedemptions(bundleId: String, environment: String, offerIds: [String]) throws -> [(userKeys: [String], offerId: String, at: Int64)] {
        try store.matchedRedemptions(bundleId: bundleId, environment: environment, offerIds: offerIds)
    }
}

/// `GET /v1/stats/experiments/{experimentId}`: the report from assignments and the history.
@Suite("GET /v1/stats/experiments/{experimentId}")
struct ExperimentReportEndpointTests {
    static let day: TimeInterval = 86_400
    static let users = (1...4).map { "6f1c2a34-0000-4000-8000-00000000000\($0)" }

    /// Users 1 and 2 assigned to `half` (signed), 3 to the control, and 4 to the control five days later; user 1 redeems
    /// and renews at full price, user 3 subscribes at full price, user 2 does nothing. The report is asked 61 days after
    /// the start (horizon 60): user 4 is maturing.
    static func environment() throws -> TestEnvironment {
        let env = try PlacementExperimentTests.running(control: 0, half: 1)
        let start = env.now
        for user in users.prefix(2) { #expect(PlacementExperimentTests.ask(env, user).json["armId"] as? String == "half") }
        #expect(ExperimentAdminTests.put(env, "exp1", ExperimentAdminTests.body(arms: PlacementExperimentTests.arms(control: 1, half: 0))).status == 200)
        #expect(PlacementExperimentTests.ask(env, users[2]).code == "experiment_control")
        env.clock = .fixed(start + 5 * day)
        #expect(PlacementExperimentTests.ask(env, users[3]).code == "experiment_control")
        func period(_ id: String, _ original: String, user: String, from: Date, days: Double, offer: Bool) {
            let transaction = TestAppStore.transaction(id: id, original: original, user: user, purchased: from, expires: from + days * day,
                                                       offerType: offer ? 2 : nil, offerId: offer ? "half" : nil,
                                                       discount: offer ? "PAY_AS_YOU_GO" : nil, price: offer ? 4_990 : 9_990, signed: from)
            #expect(OutcomesEndpointTests.post(env, TestAppStore.notification(type: "SUBSCRIBED", transaction: transaction, signed: from)).status == 200)
        }
        env.clock = .fixed(start + 61 * day)
        period("a1", "a1", user: users[0], from: start + 3_600, days: 30, offer: true)
        period("a2", "a1", user: users[0], from: start + 3_600 + 30 * day, days: 60, offer: false)
        period("c1", "c1", user: users[2], from: start + 10 * day, days: 60, offer: false)
        return env
    }

    @Test("per arm: assigned, eligible, signed, redeemed, outcomes at the horizon, revenue per user, maturing; the comparison, the SRM, the verdict")
    func report() throws {
        let env = try Self.environment()
        let response = env.send("GET", "/v1/stats/experiments/exp1", role: .marketing)
        #expect(response.status == 200, "\(response.text)")
        let body = response.json
        #expect(Set(body.keys) == ["experimentId", "bundleId", "placement", "status", "metric", "horizonDays", "alpha", "tuningSampleSize",
                                   "environment", "startedAt", "stoppedAt", "generatedAt", "revenueCaps", "arms", "comparisons",
                                   "sampleRatio", "expectedAssigned", "comparisonCount", "level", "verdict"])
        let arms = try #require(body["arms"] as? [[String: Any]])
        let control = arms[0], half = arms[1]
        #expect(control["armId"] as? String == "control" && control["assigned"] as? Int == 2 && control["matured"] as? Int == 1)
        #expect(control["maturing"] as? Int == 1 && control["retained"] as? Int == 1 && control["signed"] as? Int == 0)
        #expect(half["assigned"] as? Int == 2 && half["eligible"] as? Int == 2 && half["signed"] as? Int == 2 && half["redeemed"] as? Int == 1)
        #expect(half["retained"] as? Int == 1 && half["churned"] as? Int == 1 && half["retainedRate"] as? Double == 0.5)
        let halfRevenue = (half["revenuePerUser"] as? [String: Any])?["USD"] as? Double
        let controlRevenue = (control["revenuePerUser"] as? [String: Any])?["USD"] as? Double
        #expect(halfRevenue == 7_490.0, "(4,990 + 9,990) / 2 matured users")
        #expect(controlRevenue == 9_990.0)
        let comparisons = try #require(body["comparisons"] as? [[String: Any]])
        #expect(comparisons.count == 1 && comparisons[0]["armId"] as? String == "half" && comparisons[0]["currency"] is NSNull)
        #expect(comparisons[0]["difference"] is NSNull, "the control has one matured user: no sequence yet")
        let ratio = try #require(body["sampleRatio"] as? [String: Any])
        #expect(ratio["mismatch"] as? Bool == false, "each user drawn under the weights of their period")
        #expect(body["expectedAssigned"] as? [Double] == [2, 2])
        #expect((body["verdict"] as? String)?.hasPrefix("Not established yet") == true)
        #expect(env.send("GET", "/v1/stats/experiments/exp1", role: .auditor).status == 200)
    }

    @Test("CSV by ?format=csv or Accept: text/csv, one row per arm; bad parameters and unknown experiments refused")
    func csvAndRefusals() throws {
        let env = try Self.environment()
        let csv = env.send("GET", "/v1/stats/experiments/exp1", role: .marketing, query: ["format": "csv"])
        #expect(csv.status == 200 && csv.response.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("experimentId,environment,generatedAt,metric,armId"))
        #expect(lines[1].contains(",control,,") && lines[2].contains(",half,half,"))
        let accepted = env.send("GET", "/v1/stats/experiments/exp1", role: .marketing, headers: ["Accept": "text/csv"])
        #expect(accepted.text == csv.text)
        #expect(env.send("GET", "/v1/stats/experiments/exp1", role: .marketing, query: ["format": "xml"]).code == "invalid_request")
        #expect(env.send("GET", "/v1/stats/experiments/nope", role: .marketing).code == "experiment_not_found")
        #expect(env.send("GET", "/v1/stats/experiments/exp1", role: .marketing, query: ["environment": "Mars"]).code == "invalid_request")
    }
}
