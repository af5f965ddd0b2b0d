import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// What became of the offers, end to end: signatures through `POST /v1/offers/sign`,
/// redemptions through signed App Store notifications, and the answers of
/// `GET /v1/audit/redemptions` and `GET /v1/stats/offers/{offerId}/outcomes`.
@Suite("Offer outcomes through the endpoints")
struct OutcomesEndpointTests {
    static let day: TimeInterval = 86_400
    static let hour: TimeInterval = 3_600
    static let token = "6f1c2a34-0000-4000-8000-00000000000a"

    /// A service with offer `winback` (anyone may have it) and `token`'s lapsed subscription `s1`.
    static func environment(holdoutPercent: Int = 0) throws -> TestEnvironment {
        let env = try TestEnvironment()
        var rule = TestEnvironment.demoRule()
        rule.holdoutPercent = holdoutPercent
        try env.putOffer(rule)
        let old = TestAppStore.transaction(id: "s1", user: token, purchased: env.now - 100 * day, expires: env.now - 70 * day,
                                           signed: env.now - day)
        let stored = post(env, TestAppStore.notification(transaction: old, signed: env.now - day))
        #expect(stored.status == 200, "\(stored.text)")
        return env
    }

    static func post(_ env: TestEnvironment, _ signedPayload: String) -> TestResponse {
        env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": signedPayload]))
    }

    static func sign(_ env: TestEnvironment, user: String = token) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
    }

    /// A notification of a period of subscription `original` starting at `start` for 30 days,
    /// under the offer when `offer`, else at full price.
    static func period(_ env: TestEnvironment, id: String, original: String = "s1", user: String? = token, start: Date,
                       offer: Bool, reason: String = "PURCHASE", revoked: Date? = nil) -> TestResponse {
        let transaction = TestAppStore.transaction(
            id: id, original: original, user: user, purchased: start, expires: start + 30 * day, revoked: revoked,
            offerType: offer ? 2 : nil, offerId: offer ? "winback" : nil, discount: offer ? "PAY_AS_YOU_GO" : nil,
            price: offer ? 4_990 : 9_990, signed: revoked ?? start, reason: reason)
        return post(env, TestAppStore.notification(type: "SUBSCRIBED", transaction: transaction, signed: revoked ?? start))
    }

    static func redemptions(_ env: TestEnvironment, _ query: [String: String] = [:]) -> [[String: Any]] {
        let response = env.send("GET", "/v1/audit/redemptions", role: .auditor, query: query)
        #expect(response.status == 200, "\(response.text)")
        return response.json["items"] as? [[String: Any]] ?? []
    }

    static func outcomes(_ env: TestEnvironment, from: Date, to: Date) -> [String: Any] {
        let response = env.send("GET", "/v1/stats/offers/winback/outcomes", role: .marketing,
                                query: ["from": RFC3339.string(from: from), "to": RFC3339.string(from: to)])
        #expect(response.status == 200, "\(response.text)")
        return response.json
    }

    @Test("a redemption within 24 hours of its signature is matched, even when its notification comes days later; its outcome follows the subscription")
    func matchedAndRetained() throws {
        let env = try Self.environment()
        let signed = Self.sign(env)
        #expect(signed.status == 200)
        let nonce = try #require(signed.json["nonce"] as? String)
        let start = env.now + 23 * Self.hour
        env.clock = .fixed(env.now + 10 * Self.day)  // the notification comes late
        #expect(Self.period(env, id: "r1", start: start, offer: true).status == 200)

        var items = Self.redemptions(env)
        #expect(items.count == 1)
        #expect(items.first?["matched"] as? Bool == true)
        #expect(items.first?["signatureNonce"] as? String == nonce)
        #expect(items.first?["transactionId"] as? String == "r1")
        #expect(items.first?["originalTransactionId"] as? String == "s1")
        #expect(items.first?["appAccountToken"] as? String == Self.token)
        #expect(items.first?["outcome"] as? String == "inOffer")

        env.clock = .fixed(start + 31 * Self.day)
        #expect(Self.redemptions(env).first?["outcome"] as? String == "churned")
        #expect(Self.period(env, id: "r2", start: start + 30 * Self.day, offer: false, reason: "RENEWAL").status == 200)
        items = Self.redemptions(env)
        #expect(items.first?["outcome"] as? String == "retained")

        let report = Self.outcomes(env, from: env.now - Self.day, to: env.now + 2 * Self.day)
        #expect(report["signed"] as? Int == 1)
        #expect(report["redemptions"] as? Int == 1)
        #expect(report["matched"] as? Int == 1)
        #expect(report["unmatched"] as? Int == 0)
        #expect(report["retained"] as? Int == 1)
        #expect(report["churned"] as? Int == 0)
        #expect(report["revenue"] as? [String: Int] == ["USD": 4_990 + 9_990])
        #expect(report["environment"] as? String == "Production")
        #expect(report.keys.contains("lift") && report["lift"] is NSNull)
        #expect((report["treated"] as? [String: Int]) == ["users": 1, "returned": 1])
    }

    @Test("a redemption more than 24 hours after the signature is unmatched: listed, counted in the metric, logged as a warning")
    func unmatchedAfter24Hours() throws {
        let env = try Self.environment()
        let lines = LogLines()
        env.logger = Logger(minimumLevel: .warning) { line in lines.append(line) }
        #expect(Self.sign(env).status == 200)
        #expect(Self.period(env, id: "r1", start: env.now + 24 * Self.hour + 1, offer: true).status == 200)
        let items = Self.redemptions(env, ["matched": "false"])
        #expect(items.count == 1)
        #expect(items.first?["matched"] as? Bool == false)
        #expect(items.first?["signatureNonce"] is NSNull)
        #expect(Self.redemptions(env, ["matched": "true"]).isEmpty)
        #expect(env.metrics.render().contains(#"offer_signer_unmatched_redemptions_total{bundle_id="com.example.app",offer_id="winback"} 1"#))
        #expect(lines.objects.contains { $0["level"] as? String == "warning" && $0["transactionId"] as? String == "r1"
            && ($0["message"] as? String)?.contains("no signature issued here explains") == true })
    }

    @Test("one signature explains one redemption: a second redemption in its window stays unmatched")
    func oneSignatureOneRedemption() throws {
        let env = try Self.environment()
        #expect(Self.sign(env).status == 200)
        #expect(Self.period(env, id: "r1", start: env.now + Self.hour, offer: true).status == 200)
        #expect(Self.period(env, id: "r2", original: "s2", start: env.now + 2 * Self.hour, offer: true).status == 200)
        let items = Self.redemptions(env)
        #expect(items.map { $0["transactionId"] as? String } == ["r1", "r2"])
        #expect(items.map { $0["matched"] as? Bool } == [true, false])
        let report = Self.outcomes(env, from: env.now - Self.day, to: env.now + Self.day)
        #expect(report["redemptions"] as? Int == 2)
        #expect(report["matched"] as? Int == 1)
        #expect(report["unmatched"] as? Int == 1)
    }

    @Test("a refunded redemption is refunded")
    func refunded() throws {
        let env = try Self.environment()
        #expect(Self.sign(env).status == 200)
        #expect(Self.period(env, id: "r1", start: env.now + Self.hour, offer: true).status == 200)
        #expect(Self.period(env, id: "r1", start: env.now + Self.hour, offer: true, revoked: env.now + 3 * Self.day).status == 200)
        #expect(Self.redemptions(env).first?["outcome"] as? String == "refunded")
        let report = Self.outcomes(env, from: env.now - Self.day, to: env.now + Self.day)
        #expect(report["refunded"] as? Int == 1)
        #expect(report["revenue"] as? [String: Int] == [:])
    }

    @Test("a held-out user is refused 403 with the holdout criterion, counted, never signed; simulate and the user's offers show it; returned users give the lift")
    func holdout() throws {
        let env = try Self.environment(holdoutPercent: 50)
        let users = (0..<200).map { "6f1c2a34-0000-4000-8000-\(String(format: "%012d", $0))" }
        let held = try #require(users.first { OfferHoldout.isHeldOut(bundleId: TestEnvironment.bundleId, offerId: "winback", user: $0, percent: 50) })
        let treated = try #require(users.first { !OfferHoldout.isHeldOut(bundleId: TestEnvironment.bundleId, offerId: "winback", user: $0, percent: 50) })

        let refused = Self.sign(env, user: held)
        #expect(refused.status == 403)
        #expect(refused.code == "not_eligible")
        #expect((refused.json["reasons"] as? [[String: Any]])?.map { $0["criterion"] as? String } == ["holdout"])
        #expect(Self.sign(env, user: held).status == 403)  // always the same group
        #expect(Self.sign(env, user: treated).status == 200)
        let log = try env.signatureLog.signatures(matching: SignatureFilter(userId: held), afterSequence: 0, limit: 10)
        #expect(log.isEmpty)

        let stats = env.send("GET", "/v1/stats/offers/winback", role: .marketing)
        #expect((stats.json["totals"] as? [String: Any])?["refusalsByCriterion"] as? [String: Int] == ["holdout": 2])
        let offers = env.send("GET", "/v1/users/\(held)/offers", role: .client)
        #expect((offers.json["offers"] as? [[String: Any]])?.first?["eligible"] as? Bool == false)

        // Both come back to the subscription group after their first decision: the held-out user only.
        #expect(Self.period(env, id: "h1", original: "h1", user: held, start: env.now + 2 * Self.day, offer: false).status == 200)
        let old = TestAppStore.transaction(id: "t0", user: treated, purchased: env.now - 100 * Self.day, expires: env.now - 70 * Self.day,
                                           signed: env.now - Self.day)
        #expect(Self.post(env, TestAppStore.notification(transaction: old, signed: env.now - Self.day)).status == 200)
        let simulate = env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing)
        let failures = simulate.json["failures"] as? [[String: Any]] ?? []
        #expect(failures.contains { $0["criterion"] as? String == "holdout" })

        let report = Self.outcomes(env, from: env.now - Self.day, to: env.now + Self.day)
        #expect((report["holdout"] as? [String: Int]) == ["users": 1, "returned": 1])
        #expect((report["treated"] as? [String: Int]) == ["users": 1, "returned": 0])
        let lift = try #require(report["lift"] as? [String: Double])
        #expect(lift["difference"] == -1)
        #expect(lift["low"] == -1)
        #expect((lift["high"] ?? 1) > -1 && (lift["high"] ?? 1) < 1)
    }

    @Test("a user's first decision is sticky: lowering the holdout keeps held-out users held out and raising it keeps signed users signed; 0 ends it, the report says when and never counts a signed user as held out")
    func stickyHoldout() throws {
        let env = try Self.environment(holdoutPercent: 50)
        let users = (0..<400).map { "6f1c2a34-0000-4000-8000-\(String(format: "%012d", $0))" }
        // Users held out at 50 % but not at 10 %: the lowering would release them.
        let between = users.filter {
            let bucket = OfferHoldout.bucket(bundleId: TestEnvironment.bundleId, offerId: "winback", user: $0)
            return bucket >= 1_000 && bucket < 5_000
        }
        let held = between[0]
        let fresh = between[1]
        var rule = TestEnvironment.demoRule()
        func setHoldout(_ percent: Int) throws {
            rule.holdoutPercent = percent
            _ = try env.putOffer(rule)
        }

        #expect(Self.sign(env, user: held).status == 403)
        env.clock = .fixed(env.now + Self.hour)
        try setHoldout(10)
        let still = Self.sign(env, user: held)
        #expect(still.status == 403, "a held-out user stays held out when the holdout is lowered")
        #expect((still.json["reasons"] as? [[String: Any]])?.map { $0["criterion"] as? String } == ["holdout"])
        #expect(Self.sign(env, user: fresh).status == 200, "a user not yet decided is placed at the new percentage")
        let offers = env.send("GET", "/v1/users/\(held)/offers", role: .client)
        #expect((offers.json["offers"] as? [[String: Any]])?.first?["eligible"] as? Bool == false)

        try setHoldout(50)
        #expect(Self.sign(env, user: fresh).status == 200, "a signed user stays signed when the holdout is raised")

        var report = Self.outcomes(env, from: env.now - Self.day, to: env.now + Self.day)
        #expect((report["holdout"] as? [String: Int])?["users"] == 1)
        #expect((report["treated"] as? [String: Int])?["users"] == 1)
        #expect(report.keys.contains("holdoutEndedAt") && report["holdoutEndedAt"] is NSNull)

        let ended = env.now + 2 * Self.hour
        env.clock = .fixed(ended)
        env.now = ended
        try setHoldout(0)
        #expect(Self.sign(env, user: held).status == 200, "0 ends the holdout")
        report = Self.outcomes(env, from: env.now - Self.day, to: env.now + Self.day)
        #expect((report["holdout"] as? [String: Int])?["users"] == 0, "a signed user is never counted as held out")
        #expect((report["treated"] as? [String: Int])?["users"] == 2)
        #expect(report["holdoutEndedAt"] as? String == RFC3339.string(from: ended))
    }

    @Test("holdoutPercent is validated on PUT: 0–50")
    func holdoutValidation() throws {
        let env = try TestEnvironment()
        let body = #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["com.example.app.pro_monthly"], "holdoutPercent": 51}"#
        let refused = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: body)
        #expect(refused.status == 400)
        #expect(refused.text.contains("'holdoutPercent' must be between 0 and 50"))
        let accepted = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: body.replacingOccurrences(of: "51", with: "20"))
        #expect(accepted.status == 201)
        #expect(accepted.json["holdoutPercent"] as? Int == 20)
    }

    @Test("outcomes rebuild derives the same redemptions and matches again from the history and the log")
    func rebuild() throws {
        let env = try Self.environment()
        #expect(Self.sign(env).status == 200)
        #expect(Self.period(env, id: "r1", start: env.now + Self.hour, offer: true).status == 200)
        let before = Self.redemptions(env)
        try env.outcomes.deleteAllRedemptions()
        #expect(Self.redemptions(env).isEmpty)
        let summary = try OutcomesRebuild.run(env.outcomes)
        #expect(summary.redemptions == 1 && summary.matched == 1)
        let after = Self.redemptions(env)
        #expect(after.map { $0["signatureNonce"] as? String } == before.map { $0["signatureNonce"] as? String })
    }

    @Test("the redemptions list exports CSV and pages with a cursor")
    func csvAndPaging() throws {
        let env = try Self.environment()
        #expect(Self.period(env, id: "r1", start: env.now + Self.hour, offer: true).status == 200)
        #expect(Self.period(env, id: "r2", original: "s2", start: env.now + 2 * Self.hour, offer: true).status == 200)
        var headers = HTTPHeaders()
        headers.set("Accept", "text/csv")
        let csv = env.send("GET", "/v1/audit/redemptions", role: .auditor, headers: headers)
        #expect(csv.status == 200)
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.first == "bundleId,offerId,environment,originalTransactionId,transactionId,appAccountToken,purchaseDate,matched,signatureNonce,outcome")
        #expect(lines.count == 3)
        let first = env.send("GET", "/v1/audit/redemptions", role: .auditor, query: ["limit": "1"])
        let cursor = try #require(first.json["nextCursor"] as? String)
        let second = env.send("GET", "/v1/audit/redemptions", role: .auditor, query: ["limit": "1", "cursor": cursor])
        #expect((second.json["items"] as? [[String: Any]])?.first?["transactionId"] as? String == "r2")
    }

    @Test("bad query parameters are refused with problem documents", arguments: [
        ("/v1/audit/redemptions", ["matched": "maybe"]), ("/v1/audit/redemptions", ["from": "yesterday"]),
        ("/v1/audit/redemptions", ["limit": "0"]), ("/v1/audit/redemptions", ["cursor": "nope"]),
        ("/v1/stats/offers/winback/outcomes", ["from": "2026-13-01"]),
        ("/v1/stats/offers/winback/outcomes", ["from": "2027-01-02T00:00:00Z", "to": "2027-01-01T00:00:00Z"]),
        ("/v1/stats/offers/winback/outcomes", ["environment": "Staging"]),
    ])
    func badParameters(path: String, query: [String: String]) throws {
        let env = try Self.environment()
        let response = env.send("GET", path, role: .auditor, query: query)
        #expect(response.status == 400)
        #expect(response.code == "invalid_request")
        #expect(response.response.headers["Content-Type"]?.hasPrefix("application/problem+json") == true)
    }

    @Test("an unknown offer's outcomes are 404")
    func unknownOffer() throws {
        let env = try Self.environment()
        #expect(env.send("GET", "/v1/stats/offers/nope/outcomes", role: .auditor).status == 404)
    }
}
