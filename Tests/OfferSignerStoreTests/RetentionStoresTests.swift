import Foundation
@testable import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

/// Version 5 of the schema: signature sources, managed rules, answered retention requests.
@Suite("SQLite: retention and introductory-offer storage")
struct RetentionStoresTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let message = "7a4f2e4c-1b9d-4e1f-9c53-0b9c6f1e2d3a"

    @Test("a version-4 database's signature log migrates: every record is from the API and the chain still verifies")
    func existingLogVerifies() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        // A version-4 database with three records chained by the v1 rule, written by SQL as
        // an earlier build wrote them.
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        try connection.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, summary TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)")
        for migration in SQLiteSchema.migrations.prefix(4) {
            try connection.execute(migration.sql)
            try migration.backfill?(connection)
            try connection.run("INSERT INTO schema_migrations VALUES (?, ?, 0)", [.integer(Int64(migration.version)), .text(migration.summary)])
        }
        var previous = SignatureChain.genesis
        for sequence in Int64(1)...3 {
            let record = SignatureRecord(nonce: "n\(sequence)", format: sequence == 2 ? .jws : .legacy, bundleId: "com.a",
                                         productId: "p", offerId: "o", userId: "u", keyId: "K", timestamp: sequence,
                                         signature: "s\(sequence)", transactionId: sequence == 2 ? "t" : nil, apiKeyName: "client",
                                         requestId: "r", recordedAt: sequence)
            let hash = SignatureChain.hash(of: record, sequence: sequence, previousHash: previous)
            try connection.run("""
                INSERT INTO signatures (seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id, timestamp_ms, signature,
                    transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash)
                VALUES (?, ?, ?, 'com.a', 'p', 'o', 'u', 'K', ?, ?, ?, 'client', 'r', ?, ?, ?)
                """, [.integer(sequence), .text(record.nonce), .text(record.format.rawValue), .integer(sequence),
                      .text(record.signature), .optional(record.transactionId), .integer(sequence), .text(previous), .text(hash)])
            try connection.run("INSERT INTO signature_chain_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
                               [.integer(sequence), .text(hash)])
            previous = hash
        }

        let database = try temp.open()
        #expect(try SQLiteSchema.version(connection) == SQLiteSchema.latestVersion)
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        let report = try log.verifyIntegrity()
        #expect(report.ok && report.records == 3, "\(report.problem ?? "")")
        let all = try log.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10)
        #expect(all.allSatisfy { $0.record.source == .api && $0.record.allowIntroductoryOffer == nil })
        // New kinds of record continue the same chain.
        _ = try log.append(SignatureRecord(nonce: "n4", format: .jws, bundleId: "com.a", productId: "p", offerId: "o", userId: "u",
                                           keyId: "K", timestamp: 4, signature: "s4", transactionId: "1000", apiKeyName: "app-store",
                                           requestId: "req", recordedAt: 4, source: .retention), quota: nil)
        #expect(try log.verifyIntegrity().ok)
    }

    @Test("source and allowIntroductoryOffer round-trip, filter, and a changed source is found by the integrity check")
    func signatureSources() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        let retention = SignatureRecord(nonce: "r1", format: .jws, bundleId: "com.a", productId: "p", offerId: "o", userId: "u",
                                        keyId: "K", timestamp: 1, signature: "jws", transactionId: "1000", apiKeyName: "app-store",
                                        requestId: "req", recordedAt: 1, source: .retention)
        let intro = SignatureRecord(nonce: "i1", format: .introductoryOfferEligibility, bundleId: "com.a", productId: "p", offerId: "",
                                    userId: "u", keyId: "K", timestamp: 2, signature: "jws2", transactionId: "2000",
                                    apiKeyName: "client", requestId: "req2", recordedAt: 2, allowIntroductoryOffer: false)
        _ = try log.append(retention, quota: nil)
        _ = try log.append(intro, quota: nil)
        #expect(try log.signature(nonce: "r1")?.record == retention)
        #expect(try log.signature(nonce: "i1")?.record == intro)
        #expect(try log.signatures(matching: SignatureFilter(source: .retention), afterSequence: 0, limit: 10).map(\.record.nonce) == ["r1"])
        #expect(try log.signatures(matching: SignatureFilter(format: .introductoryOfferEligibility), afterSequence: 0, limit: 10)
                    .map(\.record.nonce) == ["i1"])
        #expect(try log.verifyIntegrity().ok)

        let writer = try SQLiteConnection(path: temp.path, readOnly: false)
        try writer.run("UPDATE signatures SET source = 'api' WHERE nonce = 'r1'")
        let relabelled = try log.verifyIntegrity()
        #expect(!relabelled.ok && relabelled.firstBadRecord?.sequence == 1)
        try writer.run("UPDATE signatures SET source = 'retention' WHERE nonce = 'r1'")
        try writer.run("UPDATE signatures SET allow_introductory_offer = 1 WHERE nonce = 'i1'")
        let granted = try log.verifyIntegrity()
        #expect(!granted.ok && granted.firstBadRecord?.sequence == 2)
    }

    @Test("rules are kept per kind and app, versioned, disabled not deleted, every change recorded", arguments: Engine.allCases)
    func ruleStore(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.rules
        let rule = RetentionRule(ruleId: "save", bundleId: "com.a", messageIdentifier: Self.message, offerId: "winback")
        let created = try store.put(rule, by: "marketing", at: Self.t0)
        #expect(created.version == 1 && created.createdAt == Self.t0)
        #expect(try store.put(rule, by: "marketing", at: Self.t0 + 10).version == 1, "an identical rule changes nothing")
        var changed = rule
        changed.priority = 7
        #expect(try store.put(changed, by: "other", at: Self.t0 + 20).version == 2)
        // The same ID in another app, and in the other kind, are other rules.
        _ = try store.put(RetentionRule(ruleId: "save", bundleId: "com.b", messageIdentifier: Self.message), by: "m", at: Self.t0)
        _ = try store.put(IntroductoryOfferRule(ruleId: "save", bundleId: "com.a", productIds: ["p"]), by: "m", at: Self.t0)
        #expect(try store.rule(RetentionRule.self, bundleId: "com.a", ruleId: "save")?.rule.priority == 7)
        #expect(try store.rules(RetentionRule.self, bundleId: nil).map(\.rule.bundleId) == ["com.a", "com.b"])
        #expect(try store.rules(IntroductoryOfferRule.self, bundleId: "com.a").map(\.rule.ruleId) == ["save"])

        let disabled = try #require(try store.disable(RetentionRule.self, bundleId: "com.a", ruleId: "save", by: "m", at: Self.t0 + 30))
        #expect(!disabled.rule.enabled && disabled.version == 3)
        #expect(try store.disable(RetentionRule.self, bundleId: "com.a", ruleId: "missing", by: "m", at: Self.t0) == nil)

        let changes = try store.changes(RetentionRule.self, bundleId: "com.a", ruleId: nil, afterId: 0, limit: 10)
        #expect(changes.map(\.action) == ["create", "update", "disable"])
        #expect(changes.map(\.apiKeyName) == ["marketing", "other", "m"])
        #expect(changes[1].before?.priority == 0 && changes[1].after?.priority == 7)
        #expect(changes[0].before == nil && changes[2].after?.enabled == false)
        #expect(try store.changes(IntroductoryOfferRule.self, bundleId: nil, ruleId: "save", afterId: 0, limit: 10).count == 1)
        #expect(try store.changes(RetentionRule.self, bundleId: nil, ruleId: nil, afterId: changes[1].id, limit: 10).count == 2)
    }

    @Test("an answered retention request is found by its identifier; the first record of an identifier wins",
          arguments: Engine.allCases)
    func retentionRequests(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.retentionRequests
        @Sendable func answer(_ json: String) -> AnsweredRetentionRequest {
            AnsweredRetentionRequest(requestIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9", bundleId: "com.a", environment: .sandbox,
                                     originalTransactionId: "1000", productId: "p", userLocale: "en-US", userId: "u", ruleId: "save",
                                     answer: .promotionalOffer, signatureNonce: "nonce", responseJSON: json, signedDate: 5,
                                     answeredAt: Self.t0)
        }
        #expect(try store.answered(bundleId: "com.a", environment: .sandbox, requestIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9") == nil)
        #expect(try store.record(answer("{\"first\":1}")) == answer("{\"first\":1}"))
        #expect(try store.record(answer("{\"second\":2}")).responseJSON == "{\"first\":1}")
        #expect(try store.answered(bundleId: "com.a", environment: .sandbox, requestIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9") == answer("{\"first\":1}"))
        // Another app (or environment) reusing the identifier has its own answer, never this one.
        var otherApp = answer("{\"other\":1}")
        otherApp.bundleId = "com.b"
        #expect(try store.answered(bundleId: "com.b", environment: .sandbox, requestIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9") == nil)
        #expect(try store.answered(bundleId: "com.a", environment: .production, requestIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9") == nil)
        #expect(try store.record(otherApp).responseJSON == "{\"other\":1}")
        let concurrent = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            var request = answer("{\"n\":\(index)}")
            request.requestIdentifier = "same"
            if let kept = try? store.record(request) { concurrent.withLock { $0.append(kept.responseJSON) } }
        }
        #expect(Set(concurrent.withLock { $0 }).count == 1, "every concurrent caller gets the one answer kept")
    }
}
