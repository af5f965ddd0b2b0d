import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// The experiment admin routes: definition, refusals, lifecycle, the revenue cap, the record of changes.
@Suite("Experiments: admin and lifecycle")
struct ExperimentAdminTests {
    static let day: TimeInterval = 86_400

    /// An environment with offers `half` and `free` and the placement `cancel_flow` listing `free` then `half`.
    static func environment() throws -> TestEnvironment {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule("half"))
        try env.putOffer(TestEnvironment.demoRule("free"))
        let created = env.send("PUT", "/v1/admin/placements/cancel_flow", role: .marketing, json: #"{"offerIds": ["free", "half"]}"#)
        #expect(created.status == 201, "\(created.text)")
        return env
    }

    static func body(placement: String = "cancel_flow", arms: String = #"[{"armId": "control", "offerId": null, "weight": 1}, {"armId": "half", "offerId": "half", "weight": 1}]"#,
                     metric: String = "retained", horizon: Int = 60, extra: String = "") -> String {
        #"{"placement": "\#(placement)", "arms": \#(arms), "metric": "\#(metric)", "horizonDays": \#(horizon)\#(extra)}"#
    }

    static func put(_ env: TestEnvironment, _ id: String = "exp1", _ json: String = body()) -> TestResponse {
        env.send("PUT", "/v1/admin/experiments/\(id)", role: .marketing, json: json)
    }

    static func action(_ env: TestEnvironment, _ id: String, _ verb: String, json: String? = nil) -> TestResponse {
        env.send("POST", "/v1/admin/experiments/\(id)/\(verb)", role: .marketing, json: json)
    }

    @Test("a draft is created (201), read, listed and changed (200, version 2), with the whole document")
    func draft() throws {
        let env = try Self.environment()
        let created = Self.put(env)
        #expect(created.status == 201, "\(created.text)")
        #expect(Set(created.json.keys) == ["experimentId", "bundleId", "placement", "arms", "metric", "horizonDays", "alpha", "expectedUsers",
                                          "status", "startedAt", "stoppedAt", "winner", "revenueCaps", "weightPeriods", "createdAt",
                                          "updatedAt", "version"])
        #expect(created.json["status"] as? String == "draft" && created.json["alpha"] as? Double == 0.05)
        #expect(created.json["expectedUsers"] is NSNull && created.json["startedAt"] is NSNull)
        let arms = try #require(created.json["arms"] as? [[String: Any]])
        #expect(arms.count == 2 && arms[0]["offerId"] is NSNull && arms[1]["offerId"] as? String == "half")
        let changed = Self.put(env, "exp1", Self.body(metric: "revenue", extra: #", "expectedUsers": 20000, "alpha": 0.01"#))
        #expect(changed.status == 200 && changed.json["version"] as? Int == 2 && changed.json["metric"] as? String == "revenue")
        #expect(env.send("GET", "/v1/admin/experiments/exp1", role: .marketing).json["expectedUsers"] as? Int == 20000)
        let list = env.send("GET", "/v1/admin/experiments", role: .marketing, query: ["bundleId": TestEnvironment.bundleId])
        #expect((list.json["experiments"] as? [[String: Any]])?.map { $0["experimentId"] as? String } == ["exp1"])
        #expect(env.send("GET", "/v1/admin/experiments/nope", role: .marketing).code == "experiment_not_found")
    }

    @Test("hostile definitions are refused with their own codes, every fault listed",
          arguments: [
            (ExperimentAdminTests.body(arms: #"[{"armId": "a", "offerId": null, "weight": 1}, {"armId": "a", "offerId": "half", "weight": 1}]"#), "duplicate_arm_id"),
            (ExperimentAdminTests.body(arms: #"[{"armId": "a", "offerId": null, "weight": -1}, {"armId": "b", "offerId": "half", "weight": 1}]"#), "invalid_weights"),
            (ExperimentAdminTests.body(arms: #"[{"armId": "a", "offerId": null, "weight": 0}, {"armId": "b", "offerId": "half", "weight": 0}]"#), "invalid_weights"),
            (ExperimentAdminTests.body(arms: #"[{"armId": "a", "offerId": null, "weight": 1}]"#), "invalid_arms"),
            (ExperimentAdminTests.body(arms: #"[{"armId": "a", "offerId": null, "weight": 1}, {"armId": "b", "offerId": "nope", "weight": 1}]"#), "unknown_offer"),
            (ExperimentAdminTests.body(placement: "nowhere"), "unknown_placement"),
            (ExperimentAdminTests.body(horizon: 29), "invalid_request"),
            (ExperimentAdminTests.body(horizon: 366), "invalid_request"),
            (ExperimentAdminTests.body(extra: #", "alpha": 0.5"#), "invalid_request"),
            (ExperimentAdminTests.body(extra: #", "expectedUsers": 1"#), "invalid_request"),
            (ExperimentAdminTests.body(metric: "clicks"), "invalid_request"),
            (ExperimentAdminTests.body(extra: #", "status": "running""#), "invalid_request"),
            (ExperimentAdminTests.body(arms: #"[{"armId": "a", "weight": 1}, {"armId": "b", "offerId": "half", "weight": 1}]"#), "invalid_request"),
            (ExperimentAdminTests.body(arms: #"[{"armId": "a/b", "offerId": null, "weight": 1}, {"armId": "b", "offerId": "half", "weight": 1}]"#), "invalid_request"),
            (ExperimentAdminTests.body(extra: #", "experimentId": "other""#), "invalid_request"),
          ])
    func refusals(json: String, code: String) throws {
        let env = try Self.environment()
        let response = Self.put(env, "exp1", json)
        #expect(response.status == 400 && response.code == code, "\(response.text)")
        #expect(!(response.json["errors"] as? [String] ?? []).isEmpty || code == "invalid_request")
        #expect(env.send("GET", "/v1/admin/experiments/exp1", role: .marketing).status == 404, "nothing stored")
    }

    @Test("every fault is listed in faults, each with its code")
    func everyFault() throws {
        let env = try Self.environment()
        let response = Self.put(env, "exp1", Self.body(
            placement: "nowhere", arms: #"[{"armId": "a", "offerId": "nope", "weight": -1}, {"armId": "a", "offerId": null, "weight": 0}]"#,
            horizon: 10))
        #expect(response.status == 400)
        let faults = try #require(response.json["faults"] as? [[String: Any]])
        #expect(Set(faults.compactMap { $0["code"] as? String }) == ["invalid_request", "invalid_weights", "duplicate_arm_id"],
                "what the definition alone shows; the placement and offers are checked once it is sound")
        #expect(response.code == "invalid_request", "the first fault's code")
    }

    @Test("lifecycle: start, one running experiment per placement, frozen arms, weights in periods, stop with a winner")
    func lifecycle() throws {
        let env = try Self.environment()
        #expect(Self.put(env).status == 201)
        #expect(Self.put(env, "exp2").status == 201)
        let started = Self.action(env, "exp1", "start")
        #expect(started.status == 200 && started.json["status"] as? String == "running", "\(started.text)")
        #expect((started.json["weightPeriods"] as? [[String: Any]])?.count == 1 && started.json["startedAt"] is String)
        #expect(Self.action(env, "exp1", "start").code == "experiment_not_draft")
        let busy = Self.action(env, "exp2", "start")
        #expect(busy.status == 409 && busy.code == "placement_busy" && busy.json["runningExperimentId"] as? String == "exp1")
        let frozen = Self.put(env, "exp1", Self.body(arms: #"[{"armId": "control", "offerId": null, "weight": 1}, {"armId": "half", "offerId": "free", "weight": 1}]"#, horizon: 90))
        #expect(frozen.status == 409 && frozen.code == "experiment_frozen" && frozen.json["fields"] as? [String] == ["arms", "horizonDays"])
        env.clock = .fixed(env.now + 60)
        let reweighted = Self.put(env, "exp1", Self.body(arms: #"[{"armId": "control", "offerId": null, "weight": 1}, {"armId": "half", "offerId": "half", "weight": 3}]"#))
        #expect(reweighted.status == 200, "\(reweighted.text)")
        let periods = try #require(reweighted.json["weightPeriods"] as? [[String: Any]])
        #expect(periods.count == 2 && periods[1]["weights"] as? [Double] == [1, 3] && periods[0]["weights"] as? [Double] == [1, 1])
        #expect(env.send("DELETE", "/v1/admin/experiments/exp1", role: .marketing).code == "experiment_not_draft")
        #expect(Self.action(env, "exp1", "stop", json: #"{"winner": "control"}"#).code == "invalid_winner", "no offer to put first")
        #expect(Self.action(env, "exp1", "stop", json: #"{"winner": "nope"}"#).code == "invalid_winner")
        #expect(Self.action(env, "exp1", "stop", json: #"{"winner": "half", "extra": 1}"#).code == "invalid_request")
        let stopped = Self.action(env, "exp1", "stop", json: #"{"winner": "half"}"#)
        #expect(stopped.status == 200 && stopped.json["status"] as? String == "stopped" && stopped.json["winner"] as? String == "half")
        let placement = env.send("GET", "/v1/admin/placements/cancel_flow", role: .marketing)
        #expect(placement.json["offerIds"] as? [String] == ["half", "free"], "the winner's offer first")
        let placementChanges = env.send("GET", "/v1/admin/placements/cancel_flow/changes", role: .marketing)
        let last = try #require((placementChanges.json["items"] as? [[String: Any]])?.last)
        #expect(last["apiKeyName"] as? String == "marketing-key" && last["version"] as? Int == 2)
        #expect(Self.action(env, "exp1", "stop").code == "experiment_not_running")
        #expect(Self.put(env).code == "experiment_stopped")
        #expect(Self.action(env, "exp2", "start").status == 200, "the placement is free again")
    }

    @Test("every change is recorded, status changes included, for marketing and auditors")
    func changes() throws {
        let env = try Self.environment()
        #expect(Self.put(env).status == 201)
        #expect(Self.action(env, "exp1", "start").status == 200)
        #expect(Self.action(env, "exp1", "stop").status == 200)
        let own = env.send("GET", "/v1/admin/experiments/exp1/changes", role: .marketing)
        let items = try #require(own.json["items"] as? [[String: Any]])
        #expect(items.map { ($0["after"] as? [String: Any])?["status"] as? String } == ["draft", "running", "stopped"])
        #expect(items.map { $0["experimentId"] as? String } == ["exp1", "exp1", "exp1"])
        #expect(items[1]["before"].flatMap { $0 as? [String: Any] }?["status"] as? String == "draft")
        let audit = env.send("GET", "/v1/audit/experiment-changes", role: .auditor, query: ["experimentId": "exp1"])
        #expect((audit.json["items"] as? [[String: Any]])?.count == 3)
    }

    @Test("a draft is deleted (kept with its history), then no longer found; a running one cannot be")
    func deleteDraft() throws {
        let env = try Self.environment()
        #expect(Self.put(env).status == 201)
        let deleted = env.send("DELETE", "/v1/admin/experiments/exp1", role: .marketing)
        #expect(deleted.status == 200 && deleted.json["status"] as? String == "deleted")
        #expect(env.send("GET", "/v1/admin/experiments/exp1", role: .marketing).status == 404)
        #expect(Self.action(env, "exp1", "start").status == 404)
        #expect((env.send("GET", "/v1/admin/experiments", role: .marketing).json["experiments"] as? [Any])?.isEmpty == true)
        #expect(Self.put(env).status == 201, "the ID may be used again")
    }

    @Test("the revenue cap is fixed at start: the 99th percentile of revenue per paying user of the app's last year, per currency")
    func revenueCap() throws {
        let env = try Self.environment()
        #expect(Self.put(env, "exp1", Self.body(metric: "revenue")).status == 201)
        let none = Self.action(env, "exp1", "start")
        #expect(none.status == 409 && none.code == "no_revenue_history", "\(none.text)")
        // 100 paying users: user i paid (i+1) × 1,000 milli-units; a refunded 1,000,000 does not count.
        for index in 0..<100 {
            let transaction = TestAppStore.transaction(id: "t\(index)", user: String(format: "00000000-0000-4000-8000-%012d", index),
                                                       purchased: env.now - 10 * Self.day, expires: env.now + 20 * Self.day,
                                                       price: (index + 1) * 1_000, signed: env.now - 10 * Self.day)
            #expect(OutcomesEndpointTests.post(env, TestAppStore.notification(transaction: transaction, signed: env.now - 10 * Self.day)).status == 200)
        }
        let refunded = TestAppStore.transaction(id: "big", user: "00000000-0000-4000-8000-999999999999", purchased: env.now - 5 * Self.day,
                                                expires: env.now + 25 * Self.day, revoked: env.now - Self.day, price: 1_000_000,
                                                signed: env.now - Self.day)
        #expect(OutcomesEndpointTests.post(env, TestAppStore.notification(transaction: refunded, signed: env.now - Self.day)).status == 200)
        let started = Self.action(env, "exp1", "start")
        #expect(started.status == 200, "\(started.text)")
        #expect(started.json["revenueCaps"] as? [String: Int] == ["USD": 99_000])
    }

    @Test("the 99th percentile is the nearest rank")
    func nearestRank() {
        #expect(ExperimentRevenueCap.cap(perUser: []) == nil)
        #expect(ExperimentRevenueCap.cap(perUser: [0, -5]) == nil)
        #expect(ExperimentRevenueCap.cap(perUser: [7]) == 7)
        #expect(ExperimentRevenueCap.cap(perUser: Array(1...100).map(Int64.init)) == 99)
        #expect(ExperimentRevenueCap.cap(perUser: Array(Array(1...1000).map(Int64.init).reversed())) == 990)
    }
}
