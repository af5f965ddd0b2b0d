import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

/// Offer IDs belong to an app: two apps served by one deployment may both have a `winback`.
@Suite("Two apps with the same offer ID")
struct TwoAppsOfferTests {
    typealias Flow = AppStoreFlow
    static let app = TestEnvironment.bundleId
    static let other = TestEnvironment.otherBundleId

    static func rule(_ bundleId: String, product: String, priority: Int = 0, limit: Int = 1) -> String {
        #"{"offerId": "winback", "bundleId": "\#(bundleId)", "productIds": ["\#(product)"], "priority": \#(priority), "limits": {"maxSignaturesPerUserPerDay": \#(limit)}}"#
    }

    func environment() throws -> TestEnvironment {
        let env = try TestEnvironment(secondApp: true)
        #expect(env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: Self.rule(Self.app, product: TestEnvironment.product)).status == 201)
        let second = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: Self.rule(Self.other, product: TestEnvironment.otherProduct))
        #expect(second.status == 201, "a new offer of the other app, not a move")
        #expect(second.json["version"] as? Int == 1 && second.json["bundleId"] as? String == Self.other)
        return env
    }

    func sign(_ env: TestEnvironment, _ bundleId: String, product: String, user: String = "u1") -> TestResponse {
        env.send("POST", "/v1/offers/sign",
                 json: #"{"bundleId": "\#(bundleId)", "productId": "\#(product)", "offerId": "winback", "userId": "\#(user)"}"#)
    }

    @Test("both exist side by side; GET, list and DELETE name the app; a PUT never moves an offer")
    func sideBySide() throws {
        let env = try environment()
        let all = env.send("GET", "/v1/admin/offers", role: .marketing).json["offers"] as? [[String: Any]] ?? []
        #expect(all.compactMap { $0["bundleId"] as? String } == [Self.app, Self.other])
        let filtered = env.send("GET", "/v1/admin/offers", role: .marketing, query: ["bundleId": Self.other]).json["offers"] as? [[String: Any]]
        #expect(filtered?.count == 1 && filtered?.first?["bundleId"] as? String == Self.other)

        let unnamed = env.send("GET", "/v1/admin/offers/winback", role: .marketing)
        #expect(unnamed.status == 400 && (unnamed.json["detail"] as? String)?.contains("bundleId") == true)
        let mine = env.send("GET", "/v1/admin/offers/winback", role: .marketing, query: ["bundleId": Self.app]).json
        #expect(mine["productIds"] as? [String] == [TestEnvironment.product])
        #expect(env.send("GET", "/v1/admin/offers/winback", role: .marketing, query: ["bundleId": "com.unknown"]).status == 404)

        let updated = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: Self.rule(Self.app, product: TestEnvironment.product, priority: 5))
        #expect(updated.status == 200 && updated.json["version"] as? Int == 2)
        let untouched = env.send("GET", "/v1/admin/offers/winback", role: .marketing, query: ["bundleId": Self.other]).json
        #expect(untouched["version"] as? Int == 1 && untouched["priority"] as? Int == 0)

        let noApp = env.send("PUT", "/v1/admin/offers/winback", role: .marketing,
                             json: #"{"offerId": "winback", "productIds": ["\#(TestEnvironment.product)"]}"#)
        #expect(noApp.status == 400 && (noApp.json["detail"] as? String)?.contains("bundleId") == true)

        #expect(env.send("DELETE", "/v1/admin/offers/winback", role: .marketing).status == 400)
        let disabled = env.send("DELETE", "/v1/admin/offers/winback", role: .marketing, query: ["bundleId": Self.other])
        #expect(disabled.status == 200 && disabled.json["enabled"] as? Bool == false)
        #expect(env.send("GET", "/v1/admin/offers/winback", role: .marketing, query: ["bundleId": Self.app]).json["enabled"] as? Bool == true)
    }

    @Test("each signs only for its own app, with its own key and its own quota")
    func signing() throws {
        let env = try environment()
        let mine = sign(env, Self.app, product: TestEnvironment.product)
        #expect(mine.status == 200 && mine.json["keyIdentifier"] as? String == "ACTIVEKEY1" && mine.json["bundleId"] as? String == Self.app)
        let theirs = sign(env, Self.other, product: TestEnvironment.otherProduct)
        #expect(theirs.status == 200, "the quota of one signature a day is per app: \(theirs.text)")
        #expect(theirs.json["keyIdentifier"] as? String == "OTHERKEY01" && theirs.json["bundleId"] as? String == Self.other)
        #expect(sign(env, Self.app, product: TestEnvironment.product).status == 429, "the first app's quota is used up")
        #expect(sign(env, Self.other, product: TestEnvironment.product, user: "u2").status == 404, "the other app's offer is not for this product")
        #expect(sign(env, Self.app, product: TestEnvironment.otherProduct, user: "u2").status == 404)
    }

    @Test("each has its own change history")
    func changeHistory() throws {
        let env = try environment()
        _ = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: Self.rule(Self.app, product: TestEnvironment.product, priority: 9))
        let changes = { (bundleId: String) in
            (env.send("GET", "/v1/audit/offer-changes", role: .auditor, query: ["bundleId": bundleId, "offerId": "winback"])
                .json["items"] as? [[String: Any]]) ?? []
        }
        #expect(changes(Self.app).compactMap { $0["version"] as? Int } == [1, 2])
        #expect(changes(Self.app).allSatisfy { $0["bundleId"] as? String == Self.app })
        #expect(changes(Self.other).compactMap { $0["action"] as? String } == ["create"])
        let all = env.send("GET", "/v1/audit/offer-changes", role: .auditor, query: ["offerId": "winback"]).json["items"] as? [[String: Any]]
        #expect(all?.count == 3)
    }

    @Test("with one app configured, bundleId may be left out of a PUT and of GET and DELETE")
    func oneApp() throws {
        let env = try TestEnvironment()
        let created = env.send("PUT", "/v1/admin/offers/solo", role: .marketing,
                               json: #"{"offerId": "solo", "productIds": ["\#(TestEnvironment.product)"]}"#)
        #expect(created.status == 201 && created.json["bundleId"] as? String == TestEnvironment.bundleId)
        #expect(env.send("GET", "/v1/admin/offers/solo", role: .marketing).status == 200)
        #expect(env.send("DELETE", "/v1/admin/offers/solo", role: .marketing).json["enabled"] as? Bool == false)
    }

    @Test("offers apply: the same offer ID once per app is fine, twice in one app is refused")
    func rulesFile() throws {
        let env = try TestEnvironment(secondApp: true)
        let configuration = env.keyRing.current
        let good = env.folder.appendingPathComponent("rules.json")
        try "[\(Self.rule(Self.app, product: "p1")), \(Self.rule(Self.other, product: "p2"))]".write(to: good, atomically: true, encoding: .utf8)
        let changed = try OfferRulesFile(path: good.path, configuration: configuration).apply(to: env.offers, by: "cli:test", at: env.now)
        #expect(changed.map(\.rule.bundleId) == [Self.app, Self.other])
        let bad = env.folder.appendingPathComponent("bad.json")
        try "[\(Self.rule(Self.app, product: "p1")), \(Self.rule(Self.app, product: "p3"))]".write(to: bad, atomically: true, encoding: .utf8)
        #expect {
            try OfferRulesFile(path: bad.path, configuration: configuration)
        } throws: { error in
            "\(error)".contains("offer 'winback' of \(Self.app) appears twice")
        }
    }
}
