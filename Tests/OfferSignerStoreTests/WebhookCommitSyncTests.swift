import Foundation
import OfferSignerCore
import OfferSignerTestSupport
import Testing
@testable import OfferSignerStore

/// The webhook lane's claims and records are committed without a sync of their own (issue 37);
/// the signature log's commits, on the same SQLite writer connection, must stay fully synced.
@Suite("Webhooks: claims and records committed without their own sync; the writer back at synchronous=FULL after each")
struct WebhookCommitSyncTests {
    struct Refused: Error {}

    static func synchronous(_ database: SQLiteDatabase) throws -> Int64? {
        try database.write { db in try db.scalar("PRAGMA synchronous") }
    }

    @Test("a transaction not synced by itself runs at NORMAL; the writer is at FULL again after it, also after one that threw")
    func sqliteRestoresFullSync() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        #expect(try Self.synchronous(database) == 2)  // FULL
        for syncing in [CommitSync.deferred, .withProcess] {
            let inside = try database.inTransaction(syncing: syncing) { db in try db.scalar("PRAGMA synchronous") }
            #expect(inside == 1, "NORMAL inside the \(syncing) transaction")
            #expect(try Self.synchronous(database) == 2, "FULL for the next transaction")
            #expect(throws: Refused.self) { try database.inTransaction(syncing: syncing) { _ in throw Refused() } }
            #expect(try Self.synchronous(database) == 2, "FULL after a rolled-back one")
        }
        #expect(try database.inTransaction(syncing: .durable) { db in try db.scalar("PRAGMA synchronous") } == 2)
    }

    @Test("a lane's claim and record leave the writer at FULL for the signature log's next batch; nothing claimed or recorded is lost on reopening")
    func laneLeavesTheLogDurable() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        var claimedIds: [Int64] = []
        do {
            let database = try temp.open()
            let outbox = WebhookOutbox()
            let webhooks = try SQLWebhookStore(database: database, outbox: outbox)
            let log = try SQLiteSignatureLog(database: database, outbox: outbox)
            defer { log.close() }
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            try webhooks.put(StoredWebhook(id: "crm", url: "https://hooks.example.com/crm", events: [.offerSigned], bundleIds: nil,
                                           enabled: true, secret: "whsec_crm", createdAt: t0, updatedAt: t0),
                             change: WebhookChange(webhookId: "crm", action: .created, actor: "admin", at: t0, document: nil))
            for user in ["user-a", "user-b"] {
                _ = try log.append(SignatureRecord(nonce: UUID().uuidString.lowercased(), format: .legacy, bundleId: "com.example.app",
                                                   productId: "pro", offerId: "offer-1", userId: user, keyId: "KEY", timestamp: 1,
                                                   signature: "sig", apiKeyName: "client", requestId: "req", recordedAt: 1), quota: nil)
            }
            let claimed = try webhooks.claim(limit: 10, now: Date(), lease: .seconds(30))
            #expect(claimed.count == 2)
            #expect(try Self.synchronous(database) == 2, "FULL after the claim")
            claimedIds = claimed.map(\.id)
            _ = try webhooks.record([DeliveryAttempt(delivery: claimed[0], at: Date(), outcome: .delivered, status: 204, answer: "", error: nil)])
            #expect(try Self.synchronous(database) == 2, "FULL after the record")
            _ = try log.append(SignatureRecord(nonce: UUID().uuidString.lowercased(), format: .legacy, bundleId: "com.example.app",
                                               productId: "pro", offerId: "offer-1", userId: "user-c", keyId: "KEY", timestamp: 2,
                                               signature: "sig", apiKeyName: "client", requestId: "req", recordedAt: 2), quota: nil)
        }
        let reopened = try temp.open()
        let states = try reopened.read { db in
            try db.select("SELECT id, state, claim IS NOT NULL FROM webhook_outbox ORDER BY id") { row in
                "\(row.int64(0)) \(row.text(1)) \(row.int64(2))"
            }
        }
        #expect(states == ["\(claimedIds[0]) delivered 0", "\(claimedIds[1]) pending 1", "\(claimedIds[1] + 1) pending 0"])
    }

    @Test("PostgreSQL: a deferred transaction runs with synchronous_commit off, the next one with it on; a claim's stays on")
    func postgreSQLSynchronousCommit() throws {
        let cluster = try TestPostgreSQLCluster.shared.get()
        let name = try cluster.createDatabase()
        defer { cluster.dropDatabase(name) }
        let database = try PostgreSQLDatabase(url: cluster.url(database: name))
        func setting(_ syncing: CommitSync) throws -> String {
            try database.inTransaction(syncing: syncing) { db in try db.select("SHOW synchronous_commit") { $0.text(0) } }.first ?? ""
        }
        #expect(try setting(.deferred) == "off")
        #expect(try setting(.durable) == "on")
        #expect(try setting(.withProcess) == "on")
        #expect(try database.inTransaction { db in try db.select("SHOW synchronous_commit") { $0.text(0) } } == ["on"])
    }
}
