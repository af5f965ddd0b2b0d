import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

@Suite("Audit API and history import")
struct AuditAndImportTests {
    static let day: TimeInterval = 86_400

    func signSome(_ env: TestEnvironment, users: [String]) -> [[String: Any]] {
        users.map { user in
            env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#).json
        }
    }

    @Test("signatures: filters, cursor paging without skips or repeats, CSV")
    func listing() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        _ = signSome(env, users: (0..<7).map { "user-\($0 % 3)" })
        var seen: [Int] = []
        var cursor: String?
        repeat {
            var query = ["limit": "3", "userId": "USER-1"]
            if let cursor { query["cursor"] = cursor }
            let page = env.send("GET", "/v1/audit/signatures", role: .auditor, query: query).json
            seen += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["sequence"] as? Int }
            cursor = page["nextCursor"] as? String
        } while cursor != nil
        #expect(seen == [2, 5])
        let all = env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["limit": "1000"]).json["items"] as? [[String: Any]] ?? []
        #expect(all.count == 7)
        let later = env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["from": "2027-01-16T00:00:00Z"]).json
        #expect((later["items"] as? [Any])?.isEmpty == true)
        let earlier = env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["to": "2027-01-16T00:00:00Z", "offerId": "winback"]).json
        #expect((earlier["items"] as? [Any])?.count == 7)
        #expect(env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["limit": "5000"]).status == 400)
        #expect(env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["cursor": "garbage"]).status == 400)
        let csv = env.send("GET", "/v1/audit/signatures", role: .auditor, headers: ["Accept": "text/csv"])
        #expect(csv.response.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.count == 8)
        #expect(lines.first?.hasPrefix("sequence,nonce,format,bundleId") == true)
    }

    @Test("paging while signatures are being issued neither skips nor repeats a record")
    func pagingUnderInserts() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        _ = signSome(env, users: (0..<20).map { "before-\($0)" })
        let router = env.router
        let writer = Thread {
            for n in 0..<60 {
                _ = router.respond(to: HTTPRequest(
                    method: "POST", path: "/v1/offers/sign",
                    headers: ["Authorization": "Bearer client-token", "Content-Type": "application/json"],
                    body: Array(#"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "during-\#(n)"}"#.utf8)))
            }
        }
        writer.start()
        var seen: [Int] = []
        var cursor: String?
        for _ in 0..<200 {
            var query = ["limit": "7"]
            if let cursor { query["cursor"] = cursor }
            let page = env.send("GET", "/v1/audit/signatures", role: .auditor, query: query).json
            seen += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["sequence"] as? Int }
            cursor = page["nextCursor"] as? String
            if cursor == nil {
                if seen.count >= 80 { break }
                cursor = PageCursor.encode(Int64(seen.last ?? 0))
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        #expect(seen == Array(1...80), "every record once, in order")
    }

    @Test("verify: valid and issued here; tampered; a signature by an inactive key still verifies")
    func verify() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let signed = signSome(env, users: ["Verify-Me"])[0]
        var body: [String: Any] = ["bundleId": TestEnvironment.bundleId, "keyIdentifier": "ACTIVEKEY1", "productId": TestEnvironment.product,
                                   "offerId": "winback", "appAccountToken": "verify-me", "nonce": signed["nonce"]!,
                                   "timestamp": signed["timestamp"]!, "signature": signed["signature"]!]
        let ok = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json(body)).json
        #expect(ok["validSignature"] as? Bool == true && ok["issuedHere"] as? Bool == true)
        #expect((ok["record"] as? [String: Any])?["userId"] as? String == "verify-me")
        body["offerId"] = "other"
        let tampered = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json(body)).json
        #expect(tampered["validSignature"] as? Bool == false && tampered["issuedHere"] as? Bool == false)

        let old = try #require(env.keyRing.current.apps[TestEnvironment.bundleId]?.keys.first { !$0.active })
        let request = PromotionalOfferRequest(bundleId: TestEnvironment.bundleId, keyIdentifier: old.keyId, productId: "p", offerId: "o",
                                              appAccountToken: "x", nonce: "n-old", timestamp: 1)
        let signature = try PromotionalOfferSigner(keyIdentifier: old.keyId, issuerId: nil, privateKey: old.privateKey).legacySignature(for: request)
        let byOldKey = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json([
            "bundleId": TestEnvironment.bundleId, "keyIdentifier": old.keyId, "productId": "p", "offerId": "o",
            "appAccountToken": "x", "nonce": "n-old", "timestamp": 1, "signature": signature])).json
        #expect(byOldKey["validSignature"] as? Bool == true && byOldKey["issuedHere"] as? Bool == false)
        #expect(byOldKey["record"] is NSNull, "a signature not logged here has \"record\": null, not a missing key")
        #expect(env.send("GET", "/v1/audit/signatures/\(signed["nonce"]!)", role: .auditor).status == 200)
        #expect(env.send("GET", "/v1/audit/signatures/unknown", role: .auditor).status == 404)
    }

    @Test("integrity: ok, then the changed row is named")
    func integrity() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        _ = signSome(env, users: ["a", "b", "c"])
        let ok = env.send("GET", "/v1/audit/integrity", role: .auditor).json
        #expect(ok["ok"] as? Bool == true && ok["records"] as? Int == 3)
        try env.database.write { db in try db.run("UPDATE signatures SET offer_id = 'free_forever' WHERE seq = 2") }
        let bad = env.send("GET", "/v1/audit/integrity", role: .auditor).json
        #expect(bad["ok"] as? Bool == false)
        #expect((bad["firstBadRecord"] as? [String: Any])?["sequence"] as? Int == 2)
    }

    @Test("offer changes: who, when, before and after")
    func offerChanges() throws {
        let env = try TestEnvironment()
        _ = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: TestAppStore.json([
            "offerId": "winback", "bundleId": TestEnvironment.bundleId, "productIds": [TestEnvironment.product]]))
        _ = env.send("DELETE", "/v1/admin/offers/winback", role: .admin)
        let items = env.send("GET", "/v1/audit/offer-changes", role: .auditor).json["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["action"] as? String } == ["create", "disable"])
        #expect(items.map { $0["apiKeyName"] as? String } == ["marketing-key", "admin-key"])
        #expect(items.first?["before"] is NSNull)
        #expect((items.last?["before"] as? [String: Any])?["enabled"] as? Bool == true)
        #expect((items.last?["after"] as? [String: Any])?["enabled"] as? Bool == false)
        #expect(items.first?["changedAt"] as? String == "2027-01-15T08:00:00Z")
    }

    @Test("import: NDJSON streamed from a spooled body; accepted, duplicates, rejected with line numbers")
    func importNDJSON() throws {
        let env = try TestEnvironment()
        let t1 = TestAppStore.transaction(id: "i1", user: "imp", purchased: env.now - 100 * Self.day, expires: env.now - 70 * Self.day, signed: env.now - Self.day)
        let renewal = TestAppStore.renewal(original: "i1", signed: env.now - Self.day)
        let notification = TestAppStore.notification(transaction: TestAppStore.transaction(
            id: "i2", original: "i1", user: "imp", purchased: env.now - 70 * Self.day, expires: env.now - 40 * Self.day, signed: env.now - Self.day),
            signed: env.now - Self.day)
        let lines = [
            TestAppStore.json(["signedTransactionInfo": t1]),
            TestAppStore.json(["signedRenewalInfo": renewal]),
            "",
            TestAppStore.json(["signedPayload": notification]),
            TestAppStore.json(["signedTransactionInfo": t1]),
            "{broken",
            TestAppStore.json(["signedTransactionInfo": "a.b.c"]),
        ]
        let file = env.folder.appendingPathComponent("upload.ndjson")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let request = HTTPRequest(method: "POST", path: "/v1/admin/history/import",
                                  headers: ["Authorization": "Bearer admin-token", "Content-Type": "application/x-ndjson"], bodyFile: file)
        let response = TestResponse(response: env.router.respond(to: request))
        #expect(response.status == 200, "\(response.text)")
        let summary = response.json
        #expect(summary["accepted"] as? Int == 3)
        #expect(summary["duplicates"] as? Int == 1)
        #expect(summary["rejectedCount"] as? Int == 2)
        #expect((summary["rejected"] as? [[String: Any]])?.compactMap { $0["line"] as? Int } == [6, 7])
        let history = try env.historyStore.history(userId: "imp", bundleId: TestEnvironment.bundleId)
        #expect(Set(history.transactions.map(\.transactionId)) == ["i1", "i2"])
        #expect(history.renewals.count == 1)
    }
}
