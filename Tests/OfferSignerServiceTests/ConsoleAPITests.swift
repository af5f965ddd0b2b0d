import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// The API the console is built on: simulating an unsaved rule, activity per day, an
/// offer's own history, and every offer's verdict for support staff.
@Suite("Console API: simulate a draft, activity, offer history, verdicts")
struct ConsoleAPITests {
    static let day: TimeInterval = 86_400
    static let lapsedRule = EligibilityCriteria(requireLapsed: true, minPaidDays: 60, minDaysSinceExpiry: 30, maxDaysSinceExpiry: 365)

    /// Three paid months ending `lapsedDays` ago (negative: still running).
    func paidMonths(_ env: TestEnvironment, user: String, lapsedDays: Double, prefix: String) {
        let end = env.now - lapsedDays * Self.day
        for month in 0..<3 {
            let start = end - Double(3 - month) * 30 * Self.day
            let response = env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": TestAppStore.notification(
                transaction: TestAppStore.transaction(id: "\(prefix)\(month)", original: "\(prefix)0", user: user, purchased: start,
                                                      expires: start + 30 * Self.day, signed: env.now - Self.day + Double(month)),
                signed: env.now - Self.day)]))
            #expect(response.status == 200)
        }
    }

    func population() throws -> TestEnvironment {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(eligibility: Self.lapsedRule))
        paidMonths(env, user: "lapsed-a", lapsedDays: 100, prefix: "a")
        paidMonths(env, user: "lapsed-b", lapsedDays: 200, prefix: "b")
        paidMonths(env, user: "recent", lapsedDays: 5, prefix: "c")
        paidMonths(env, user: "active", lapsedDays: -20, prefix: "d")
        return env
    }

    func sign(_ env: TestEnvironment, _ user: String) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
    }

    @Test("simulating an unsaved rule judges the body, counts failures per criterion and the funnel in rule order")
    func simulateDraft() throws {
        let env = try population()
        let stored = env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing).json
        #expect(stored["draft"] as? Bool == false && stored["eligible"] as? Int == 2 && stored["known"] as? Int == 4)
        // The draft tightens the upper bound: lapsed-b (200 days) now fails too. Nothing is saved.
        let draft = #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["\#(TestEnvironment.product)"], "eligibility": {"requireLapsed": true, "minDaysSinceExpiry": 30, "maxDaysSinceExpiry": 150}}"#
        let result = env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing, json: draft).json
        #expect(result["draft"] as? Bool == true && result["eligible"] as? Int == 1 && result["sample"] as? [String] == ["lapsed-a"])
        let failures = (result["failures"] as? [[String: Any]] ?? []).map { "\($0["criterion"]!)=\($0["users"]!)" }
        #expect(failures == ["requireLapsed=1", "minDaysSinceExpiry=2", "maxDaysSinceExpiry=2"])
        let funnel = (result["funnel"] as? [[String: Any]] ?? []).map { "\($0["criterion"]!)=\($0["remaining"]!)" }
        #expect(funnel == ["requireLapsed=3", "minDaysSinceExpiry=2", "maxDaysSinceExpiry=1"])
        #expect(try env.offers.offer(bundleId: "com.example.app", offerId: "winback")?.rule.eligibility.maxDaysSinceExpiry == 365)
    }

    @Test("simulating a draft for an offer not saved yet works; a wrong draft is refused with every fault")
    func simulateNewAndWrong() throws {
        let env = try population()
        let fresh = #"{"offerId": "brand_new", "bundleId": "com.example.app", "productIds": ["\#(TestEnvironment.product)"]}"#
        let result = env.send("POST", "/v1/admin/offers/brand_new/simulate", role: .marketing, json: fresh)
        #expect(result.status == 200 && result.json["eligible"] as? Int == 4)
        let wrong = #"{"offerId": "other", "bundleId": "com.example.app", "productIds": [], "eligibility": {"minDaysSinceExpiry": 90, "maxDaysSinceExpiry": 30}}"#
        let refused = env.send("POST", "/v1/admin/offers/brand_new/simulate", role: .marketing, json: wrong)
        #expect(refused.status == 400)
        let errors = refused.json["errors"] as? [String] ?? []
        #expect(errors.count == 3 && errors.contains { $0.contains("'eligibility.minDaysSinceExpiry' (90) is above") })
        #expect(env.send("POST", "/v1/admin/offers/brand_new/simulate", role: .marketing).status == 404)
    }

    @Test("refusals are counted per day and criterion, signatures come from the log, and both survive a restart")
    func activity() throws {
        let env = try population()
        #expect(sign(env, "lapsed-a").status == 200)
        #expect(sign(env, "lapsed-b").status == 200)
        #expect(sign(env, "recent").status == 403)
        #expect(sign(env, "active").status == 403)
        #expect(sign(env, "nobody").status == 403)
        let stats = env.send("GET", "/v1/stats/offers/winback", role: .marketing, query: ["from": "2027-01-01", "to": "2027-01-15"]).json
        let days = stats["days"] as? [[String: Any]] ?? []
        #expect(days.count == 15 && days.first?["day"] as? String == "2027-01-01")
        let today = RFC3339.string(from: env.now).prefix(10)
        let todayStats = try #require(days.first { $0["day"] as? String == String(today) })
        #expect(todayStats["signatures"] as? Int == 2 && todayStats["refusals"] as? Int == 3)
        let byCriterion = todayStats["refusalsByCriterion"] as? [String: Int] ?? [:]
        // recent: minDaysSinceExpiry; active: requireLapsed and both bounds; nobody: all four.
        #expect(byCriterion == ["requireLapsed": 2, "minPaidDays": 1, "minDaysSinceExpiry": 3, "maxDaysSinceExpiry": 2])
        #expect((stats["totals"] as? [String: Any])?["refusals"] as? Int == 3)

        // A new process over the same database: the counts were written, not only kept in memory.
        let reopened = OfferActivity(store: SQLiteOfferActivityStore(database: env.database))
        let stored = try reopened.store.refusals(bundleId: TestEnvironment.bundleId, offerId: "winback",
                                                 fromDay: OfferActivity.day(of: env.now), toDay: OfferActivity.day(of: env.now))
        #expect(stored.first { $0.criterion == RefusalCount.requests }?.count == 3)

        let summary = env.send("GET", "/v1/stats/offers", role: .auditor).json["offers"] as? [[String: Any]] ?? []
        #expect(summary.count == 1 && summary[0]["signaturesLast24h"] as? Int == 2 && summary[0]["signaturesLast7d"] as? Int == 2
                    && summary[0]["refusalsLast7Days"] as? Int == 3)
    }

    @Test("a used-up daily quota is counted as a refusal for maxSignaturesPerUserPerDay")
    func quotaRefusal() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: 1)))
        #expect(sign(env, "u").status == 200)
        #expect(sign(env, "u").status == 429)
        try env.activity.flush()
        let counts = try env.activity.store.refusals(bundleId: TestEnvironment.bundleId, offerId: "winback",
                                                                  fromDay: 0, toDay: OfferActivity.day(of: env.now))
        #expect(counts.map { "\($0.criterion)=\($0.count)" }.sorted() == ["=1", "maxSignaturesPerUserPerDay=1"])
    }

    @Test("stats refuse a bad range, an unknown bucket and an unknown offer")
    func statsRefusals() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        for (query, status) in [(["bucket": "hour"], 400), (["from": "2027-02-01", "to": "2027-01-01"], 400),
                                (["from": "2025-01-01", "to": "2027-01-01"], 400), (["from": "yesterday"], 400),
                                (["from": "2027-01-01T10:00:00Z", "to": "2027-01-02"], 200), (["bundleId": "com.other"], 404)] {
            #expect(env.send("GET", "/v1/stats/offers/winback", role: .marketing, query: query).status == status, "\(query)")
        }
        #expect(env.send("GET", "/v1/stats/offers/nope", role: .marketing).status == 404)
    }

    @Test("an offer's own history for marketing: who, when, before and after, paged")
    func offerChanges() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        var changed = TestEnvironment.demoRule()
        changed.priority = 7
        let body = String(decoding: try JSONCoding.encoder.encode(changed), as: UTF8.self)
        #expect(env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: body).status == 200)
        let page = env.send("GET", "/v1/admin/offers/winback/changes", role: .marketing, query: ["limit": "1"]).json
        let first = (page["items"] as? [[String: Any]])?.first
        #expect(first?["action"] as? String == "create" && first?["apiKeyName"] as? String == "test")
        let next = env.send("GET", "/v1/admin/offers/winback/changes", role: .marketing, query: ["cursor": page["nextCursor"] as? String ?? ""]).json
        let second = (next["items"] as? [[String: Any]])?.first
        #expect(second?["apiKeyName"] as? String == "marketing-key" && (second?["before"] as? [String: Any])?["priority"] as? Int == 0
                    && (second?["after"] as? [String: Any])?["priority"] as? Int == 7)
        #expect(env.send("GET", "/v1/admin/offers/nope/changes", role: .marketing).status == 404)
    }

    @Test("support sees every offer's verdict, disabled ones too when asked")
    func verdictsForSupport() throws {
        let env = try population()
        var disabled = TestEnvironment.demoRule("old_offer")
        disabled.enabled = false
        try env.putOffer(disabled)
        let plain = env.send("GET", "/v1/users/lapsed-a/offers", role: .marketing).json["offers"] as? [[String: Any]] ?? []
        #expect(plain.map { $0["offerId"] as? String } == ["winback"])
        let all = env.send("GET", "/v1/users/lapsed-a/offers", role: .marketing, query: ["includeDisabled": "true"]).json["offers"] as? [[String: Any]] ?? []
        let old = try #require(all.first { $0["offerId"] as? String == "old_offer" })
        #expect(old["eligible"] as? Bool == false && (old["reasons"] as? [[String: Any]])?.first?["criterion"] as? String == "enabled")
        #expect(env.send("GET", "/v1/users/lapsed-a/offers", role: .marketing, query: ["includeDisabled": "null"]).status == 400)
    }

    @Test("with two apps the console's offer routes need ?bundleId= and answer each app's own offer; simulate reads one environment")
    func twoAppsAndEnvironments() throws {
        let env = try TestEnvironment(secondApp: true)
        try env.putOffer(TestEnvironment.demoRule())
        var other = TestEnvironment.demoRule()
        other.bundleId = TestEnvironment.otherBundleId
        other.productIds = [TestEnvironment.otherProduct]
        other.priority = 3
        try env.putOffer(other)
        for path in ["/v1/stats/offers/winback", "/v1/admin/offers/winback/changes"] {
            #expect(env.send("GET", path, role: .marketing).status == 400, "\(path)")
            let mine = env.send("GET", path, role: .marketing, query: ["bundleId": TestEnvironment.otherBundleId])
            #expect(mine.status == 200, "\(path)")
        }
        let stats = env.send("GET", "/v1/stats/offers/winback", role: .marketing, query: ["bundleId": TestEnvironment.otherBundleId]).json
        #expect(stats["bundleId"] as? String == TestEnvironment.otherBundleId)
        let changes = env.send("GET", "/v1/admin/offers/winback/changes", role: .marketing, query: ["bundleId": TestEnvironment.otherBundleId]).json
        let items = changes["items"] as? [[String: Any]] ?? []
        #expect(items.count == 1 && (items.first?["after"] as? [String: Any])?["priority"] as? Int == 3)

        // A draft names its app in the body; a different ?bundleId= is refused rather than ignored.
        let draft = #"{"offerId": "winback", "bundleId": "\#(TestEnvironment.bundleId)", "productIds": ["\#(TestEnvironment.product)"]}"#
        let mismatch = env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing,
                                json: draft, query: ["bundleId": TestEnvironment.otherBundleId])
        #expect(mismatch.status == 400 && (mismatch.json["detail"] as? String ?? "").contains("differs from the draft's bundleId"))
        let sandbox = env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing,
                               json: draft, query: ["bundleId": TestEnvironment.bundleId, "environment": "Sandbox"]).json
        #expect(sandbox["environment"] as? String == "Sandbox" && sandbox["draft"] as? Bool == true && sandbox["bundleId"] as? String == TestEnvironment.bundleId)
        #expect(env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing,
                         query: ["bundleId": TestEnvironment.bundleId, "environment": "Xcode"]).status == 400)
    }
}
