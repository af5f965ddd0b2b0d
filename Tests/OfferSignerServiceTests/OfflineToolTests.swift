import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import Testing

@Suite("Command-line tools on the database")
struct OfflineToolTests {
    @Test("offers apply: a valid file is applied as one change set; a file with one bad rule changes nothing")
    func applyRules() throws {
        let env = try TestEnvironment()
        let configuration = env.keyRing.current
        let good = env.folder.appendingPathComponent("rules.json")
        try #"[{"offerId": "a", "bundleId": "com.example.app", "productIds": ["p1"]}, {"offerId": "b", "bundleId": "com.example.app", "productIds": ["p2"], "priority": 3}]"#
            .write(to: good, atomically: true, encoding: .utf8)
        let changed = try OfferRulesFile(path: good.path, configuration: configuration).apply(to: env.offers, by: "cli:test", at: env.now)
        #expect(changed.map(\.rule.offerId) == ["a", "b"])
        #expect(try OfferRulesFile(path: good.path, configuration: configuration).apply(to: env.offers, by: "cli:test", at: env.now).isEmpty)

        let bad = env.folder.appendingPathComponent("bad.json")
        try #"[{"offerId": "a", "bundleId": "com.example.app", "productIds": ["p9"]}, {"offerId": "c", "bundleId": "com.example.app", "productIds": []}]"#
            .write(to: bad, atomically: true, encoding: .utf8)
        #expect {
            try OfferRulesFile(path: bad.path, configuration: configuration)
        } throws: { error in
            "\(error)".contains("offer 'c'") && "\(error)".contains("productIds")
        }
        #expect(try env.offers.offer(bundleId: TestEnvironment.bundleId, offerId: "a")?.rule.productIds == ["p1"], "nothing of the bad file applied")
        #expect(try env.offers.changes(bundleId: nil, offerId: nil, afterId: 0, limit: 10).map(\.apiKeyName) == ["cli:test", "cli:test"])
    }

    @Test("one ID rule for every way in: an offer or rule ID with / is refused by offers apply and the admin API alike")
    func slashInIds() throws {
        let env = try TestEnvironment()
        let file = env.folder.appendingPathComponent("slash.json")
        try #"[{"offerId": "win/back", "bundleId": "com.example.app", "productIds": ["p1"]}]"#.write(to: file, atomically: true, encoding: .utf8)
        #expect {
            try OfferRulesFile(path: file.path, configuration: env.keyRing.current)
        } throws: { error in
            "\(error)".contains("'offerId' must be 1–256 visible ASCII characters other than /")
        }
        let retention = env.send("PUT", "/v1/admin/retention-rules/a", role: .marketing, json: #"""
            {"ruleId": "a", "messageIdentifier": "11111111-1111-4111-8111-111111111111", "offerId": "win/back"}
            """#)
        #expect(retention.status == 400 && retention.text.contains("other than /"), "\(retention.text)")
        let rule = OfferRule(offerId: "win/back", bundleId: TestEnvironment.bundleId, productIds: ["p1"])
        #expect(rule.validationProblems() == ["'offerId' must be 1–256 visible ASCII characters other than /"])
        #expect(OfferRule(offerId: "win.back-2026_a", bundleId: TestEnvironment.bundleId, productIds: ["p1"]).validationProblems().isEmpty)
    }

    @Test("audit export: CSV with a header, NDJSON one record per line, filtered by time")
    func export() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        for user in ["a", "b", "c"] {
            _ = env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
        }
        var csv = ""
        #expect(try AuditExport(format: .csv, filter: SignatureFilter()).run(env.signatureLog) { csv += $0 } == 3)
        #expect(csv.split(separator: "\r\n").count == 4)
        var ndjson = ""
        try AuditExport(format: .ndjson, filter: SignatureFilter()).run(env.signatureLog) { ndjson += $0 }
        let users = try ndjson.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            .map { $0["userId"] as? String }
        #expect(users == ["a", "b", "c"])
        var none = ""
        #expect(try AuditExport(format: .ndjson, filter: SignatureFilter(fromTimestamp: env.now.milliseconds + 1)).run(env.signatureLog) { none += $0 } == 0)
        #expect(none.isEmpty)
    }
}
