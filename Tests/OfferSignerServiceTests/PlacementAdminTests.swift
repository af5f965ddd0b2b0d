import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

/// The admin routes of placements: an app's named moments and the offers each may show, in
/// priority order, versioned and audited like rules.
@Suite("Placement admin")
struct PlacementAdminTests {
    @Test("create 201 with the path's ID, replace 200, read, list per app, disable; every change audited under placementId")
    func lifecycle() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        try env.putOffer(TestEnvironment.demoRule("half_price"))
        let created = env.send("PUT", "/v1/admin/placements/cancel_flow", role: .marketing,
                               json: #"{"offerIds": ["half_price", "winback"], "description": "The cancel flow"}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["placementId"] as? String == "cancel_flow")
        #expect(created.json["bundleId"] as? String == TestEnvironment.bundleId, "the only app is the default")
        #expect(created.json["offerIds"] as? [String] == ["half_price", "winback"], "the order is kept: it is the priority")
        #expect(created.json["version"] as? Int == 1 && created.json["enabled"] as? Bool == true)
        #expect(created.json["ruleId"] == nil && created.json["priority"] == nil, "a placement has no rule ID or priority")

        let replaced = env.send("PUT", "/v1/admin/placements/cancel_flow", role: .marketing,
                                json: #"{"placementId": "cancel_flow", "offerIds": ["winback", "half_price"]}"#)
        #expect(replaced.status == 200 && replaced.json["version"] as? Int == 2, "\(replaced.text)")
        #expect(replaced.json["description"] is NSNull, "a description left out is cleared")
        #expect(env.send("GET", "/v1/admin/placements/cancel_flow", role: .marketing).json["offerIds"] as? [String] == ["winback", "half_price"])
        let listed = env.send("GET", "/v1/admin/placements", role: .marketing, query: ["bundleId": TestEnvironment.bundleId])
        #expect((listed.json["placements"] as? [[String: Any]])?.map { $0["placementId"] as? String } == ["cancel_flow"], "\(listed.text)")
        let disabled = env.send("DELETE", "/v1/admin/placements/cancel_flow", role: .marketing)
        #expect(disabled.status == 200 && disabled.json["enabled"] as? Bool == false)
        #expect(env.send("GET", "/v1/admin/placements/missing", role: .marketing).status == 404)

        let history = env.send("GET", "/v1/admin/placements/cancel_flow/changes", role: .marketing)
        #expect((history.json["items"] as? [[String: Any]])?.count == 3)
        let audit = env.send("GET", "/v1/audit/placement-changes", role: .auditor, query: ["placementId": "cancel_flow"])
        let items = try #require(audit.json["items"] as? [[String: Any]], "\(audit.text)")
        #expect(items.map { $0["action"] as? String } == ["create", "update", "disable"])
        #expect(items.allSatisfy { $0["placementId"] as? String == "cancel_flow" && $0["apiKeyName"] as? String == "marketing-key" })
        #expect((items[1]["before"] as? [String: Any])?["offerIds"] as? [String] == ["half_price", "winback"])
        #expect((items[1]["after"] as? [String: Any])?["offerIds"] as? [String] == ["winback", "half_price"])
        #expect(env.send("GET", "/v1/audit/placement-changes", role: .auditor, query: ["placementId": "other"]).json["items"] as? [Any] != nil)
        #expect((env.send("GET", "/v1/audit/retention-rule-changes", role: .auditor).json["items"] as? [Any])?.isEmpty == true)
    }

    @Test("a placement that cannot be right is refused with every fault, and nothing is stored", arguments: [
        (#"{"offerIds": []}"#, "'offerIds' must name at least one offer"),
        (#"{"offerIds": ["winback", "winback"]}"#, "'offerIds' lists a value twice"),
        (#"{"offerIds": ["nope"]}"#, "'offerIds[0]' names no offer of com.example.app: no offer 'nope' is configured"),
        (#"{"placementId": "other", "offerIds": ["winback"]}"#, "'placementId' in the body ('other') differs from the placement ID in the path ('cancel_flow')"),
        (#"{"bundleId": "com.unknown", "offerIds": ["winback"]}"#, "no app with bundleId 'com.unknown' is configured"),
        (#"{"offerIds": ["winback"], "description": "tab\u0009inside"}"#, "'description' must not contain control or invisible formatting characters"),
        (#"{"offerIds": ["winback"], "description": "rtl \u202E override"}"#, "'description' must not contain control or invisible formatting characters"),
    ])
    func refusals(body: String, fault: String) throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let response = env.send("PUT", "/v1/admin/placements/cancel_flow", role: .marketing, json: body)
        #expect(response.status == 400 && response.code == "invalid_request")
        #expect((response.json["errors"] as? [String])?.contains(fault) == true, "\(response.text)")
        #expect(try env.rules.rules(Placement.self, bundleId: nil).isEmpty)
    }

    @Test("an unknown field and a missing offer list are refused by name")
    func strictBody() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let unknown = env.send("PUT", "/v1/admin/placements/p", role: .marketing, json: #"{"offerIds": ["winback"], "offers": ["x"]}"#)
        #expect(unknown.status == 400 && unknown.text.contains("offers"))
        let missing = env.send("PUT", "/v1/admin/placements/p", role: .marketing, json: #"{"description": "no offers"}"#)
        #expect(missing.status == 400 && missing.text.contains("offerIds"))
    }
}
