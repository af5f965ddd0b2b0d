import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

/// The admin routes of retention rules and introductory-offer rules, and their audited changes.
@Suite("Retention and introductory-offer rule admin")
struct RuleAdminTests {
    static let message = "44444444-4444-4444-8444-444444444444"

    @Test("retention rules: create 201, replace 200, read, list, disable; every change audited with who, before and after")
    func retentionLifecycle() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let body = #"{"ruleId": "save", "messageIdentifier": "\#(Self.message)", "offerId": "winback", "locales": ["en"]}"#
        let created = env.send("PUT", "/v1/admin/retention-rules/save", role: .marketing, json: body)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["bundleId"] as? String == TestEnvironment.bundleId, "the only app is the default")
        #expect(created.json["version"] as? Int == 1 && created.json["enabled"] as? Bool == true)
        let replaced = env.send("PUT", "/v1/admin/retention-rules/save", role: .marketing,
                                json: body.replacingOccurrences(of: "\"locales\"", with: "\"priority\": 4, \"locales\""))
        #expect(replaced.status == 200 && replaced.json["version"] as? Int == 2 && replaced.json["priority"] as? Int == 4)
        #expect(env.send("GET", "/v1/admin/retention-rules/save", role: .marketing).json["priority"] as? Int == 4)
        #expect((env.send("GET", "/v1/admin/retention-rules", role: .marketing).json["rules"] as? [[String: Any]])?.count == 1)
        let disabled = env.send("DELETE", "/v1/admin/retention-rules/save", role: .marketing)
        #expect(disabled.status == 200 && disabled.json["enabled"] as? Bool == false)
        #expect(env.send("DELETE", "/v1/admin/retention-rules/missing", role: .marketing).status == 404)
        #expect(env.send("GET", "/v1/admin/retention-rules/missing", role: .marketing).status == 404)

        let changes = env.send("GET", "/v1/audit/retention-rule-changes", role: .auditor)
        let items = try #require(changes.json["items"] as? [[String: Any]])
        #expect(items.map { $0["action"] as? String } == ["create", "update", "disable"])
        #expect(items.allSatisfy { $0["apiKeyName"] as? String == "marketing-key" && $0["ruleId"] as? String == "save" })
        #expect((items[1]["before"] as? [String: Any])?["priority"] as? Int == 0)
        #expect((items[1]["after"] as? [String: Any])?["priority"] as? Int == 4)
        #expect(items[0]["before"] is NSNull)
        #expect((env.send("GET", "/v1/audit/introductory-offer-rule-changes", role: .auditor).json["items"] as? [Any])?.isEmpty == true)
    }

    @Test("a retention rule that cannot be right is refused with every fault, and nothing is stored", arguments: [
        (#"{"ruleId": "save", "messageIdentifier": "not-a-uuid"}"#, "'messageIdentifier' must be the UUID of a retention message"),
        (#"{"ruleId": "save", "messageIdentifier": "\#(message)", "offerId": "nope"}"#, "'offerId' names no offer of com.example.app: no offer 'nope' is configured"),
        (#"{"ruleId": "other", "messageIdentifier": "\#(message)"}"#, "'ruleId' in the body ('other') differs from the rule ID in the path ('save')"),
        (#"{"ruleId": "save", "bundleId": "com.unknown", "messageIdentifier": "\#(message)"}"#, "no app with bundleId 'com.unknown' is configured"),
        (#"{"ruleId": "save", "messageIdentifier": "\#(message)", "offerId": "winback", "alternateProductId": "p"}"#,
         "'alternateProductId' and 'offerId' exclude each other: a retention message suggests a plan or an offer"),
    ])
    func retentionRefusals(body: String, fault: String) throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let response = env.send("PUT", "/v1/admin/retention-rules/save", role: .marketing, json: body)
        #expect(response.status == 400 && response.code == "invalid_request")
        #expect((response.json["errors"] as? [String])?.contains(fault) == true, "\(response.text)")
        #expect(try env.rules.rules(RetentionRule.self, bundleId: nil).isEmpty)
    }

    @Test("introductory-offer rules: create, refuse a rule naming neither products nor groups, disable, audit")
    func introductoryLifecycle() throws {
        let env = try TestEnvironment()
        let created = env.send("PUT", "/v1/admin/introductory-offer-rules/again", role: .marketing, json: """
            {"ruleId": "again", "subscriptionGroupIds": ["group-1"], "allowAgain": {"requireLapsed": true, "minDaysSinceExpiry": 365, "minPaidDays": 30},
             "excludeRefunded": true}
            """)
        #expect(created.status == 201, "\(created.text)")
        #expect((created.json["allowAgain"] as? [String: Any])?["minDaysSinceExpiry"] as? Int == 365)
        let nowhere = env.send("PUT", "/v1/admin/introductory-offer-rules/x", role: .marketing, json: #"{"ruleId": "x"}"#)
        #expect(nowhere.status == 400 && (nowhere.json["errors"] as? [String])?.first?.hasPrefix("name the products") == true)
        let unknownField = env.send("PUT", "/v1/admin/introductory-offer-rules/x", role: .marketing,
                                    json: #"{"ruleId": "x", "productIds": ["p"], "allowAgain": {"minPaidDay": 3}}"#)
        #expect(unknownField.status == 400 && unknownField.text.contains("minPaidDay"))
        #expect(env.send("DELETE", "/v1/admin/introductory-offer-rules/again", role: .marketing).json["enabled"] as? Bool == false)
        let items = env.send("GET", "/v1/audit/introductory-offer-rule-changes", role: .auditor, query: ["ruleId": "again"]).json["items"]
        #expect((items as? [[String: Any]])?.map { $0["action"] as? String } == ["create", "disable"])
    }

    @Test("marketing reads one rule's history (who, when, before, after) without the auditor's route; another rule's changes are not in it")
    func oneRuleHistory() throws {
        let env = try TestEnvironment()
        for (kind, body) in [("retention-rules", #"{"ruleId": "RULE", "messageIdentifier": "\#(Self.message)"}"#),
                             ("introductory-offer-rules", #"{"ruleId": "RULE", "productIds": ["p"]}"#)] {
            for rule in ["one", "two"] {
                let put = env.send("PUT", "/v1/admin/\(kind)/\(rule)", role: .marketing, json: body.replacingOccurrences(of: "RULE", with: rule))
                #expect(put.status == 201, "\(kind) \(rule): \(put.text)")
            }
            #expect(env.send("DELETE", "/v1/admin/\(kind)/one", role: .marketing).status == 200)
            let history = env.send("GET", "/v1/admin/\(kind)/one/changes", role: .marketing)
            let items = try #require(history.json["items"] as? [[String: Any]], "\(kind): \(history.text)")
            #expect(items.map { $0["action"] as? String } == ["create", "disable"], "\(kind)")
            #expect(items.allSatisfy { $0["ruleId"] as? String == "one" && $0["apiKeyName"] as? String == "marketing-key" && $0["changedAt"] is String })
            #expect((items[1]["before"] as? [String: Any])?["enabled"] as? Bool == true)
            #expect((items[1]["after"] as? [String: Any])?["enabled"] as? Bool == false)
            #expect(history.json["nextCursor"] is NSNull)
            let paged = env.send("GET", "/v1/admin/\(kind)/one/changes", role: .marketing, query: ["limit": "1"])
            #expect((paged.json["items"] as? [Any])?.count == 1 && paged.json["nextCursor"] is String)
            #expect(env.send("GET", "/v1/admin/\(kind)/missing/changes", role: .marketing).status == 404)
            #expect(env.send("GET", "/v1/admin/\(kind)/one/changes", role: .auditor).status == 403)
        }
    }

    @Test("with two apps, a rule names its app; each app's rules are its own")
    func twoApps() throws {
        let env = try TestEnvironment(secondApp: true)
        let unnamed = env.send("PUT", "/v1/admin/retention-rules/r", role: .marketing, json: #"{"ruleId": "r", "messageIdentifier": "\#(Self.message)"}"#)
        #expect(unnamed.status == 400)
        for bundle in [TestEnvironment.bundleId, TestEnvironment.otherBundleId] {
            let response = env.send("PUT", "/v1/admin/retention-rules/r", role: .marketing,
                                    json: #"{"ruleId": "r", "bundleId": "\#(bundle)", "messageIdentifier": "\#(Self.message)"}"#)
            #expect(response.status == 201)
        }
        #expect(env.send("GET", "/v1/admin/retention-rules/r", role: .marketing).status == 400, "?bundleId= is needed with two apps")
        #expect(env.send("DELETE", "/v1/admin/retention-rules/r", role: .marketing, query: ["bundleId": TestEnvironment.otherBundleId]).status == 200)
        let other = env.send("GET", "/v1/admin/retention-rules", role: .marketing, query: ["bundleId": TestEnvironment.otherBundleId])
        #expect((other.json["rules"] as? [[String: Any]])?.map { $0["enabled"] as? Bool } == [false])
        #expect(env.send("GET", "/v1/admin/retention-rules/r", role: .marketing, query: ["bundleId": TestEnvironment.bundleId])
                    .json["enabled"] as? Bool == true)
    }
}
