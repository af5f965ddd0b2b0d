import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

/// The SQLite signature log's writer commits a batch without its own sync and goes on; the WAL's
/// syncer (`wal-sync`) syncs it and only then answers its callers (issue 38, change 6).
@Suite("Pipelined group commit: answers after the WAL's sync, a failed sync final, webhook claims after the sync")
struct PipelinedCommitTests {
    /// The WAL's sync as a test drives it: while `held`, each sync waits for `release()`; the
    /// next `failures` syncs fail with EIO (after any wait).
    final class GatedSync: Sendable {
        private struct State {
            var held = false
            var failures = 0
            var entered = 0
            var returned = 0
        }

        private let state = Mutex(State())
        private let gate = DispatchSemaphore(value: 0)

        func hold() { state.withLock { $0.held = true } }

        func fail(next count: Int) { state.withLock { $0.failures = count } }

        /// Lets every waiting and later sync through.
        func release() {
            let waiting = state.withLock { state -> Int in
                state.held = false
                return state.entered - state.returned
            }
            for _ in 0..<max(waiting, 0) { gate.signal() }
        }

        var entered: Int { state.withLock { $0.entered } }
        var returned: Int { state.withLock { $0.returned } }

        var sync: SQLiteWALFile.Sync {
            { [self] descriptor in
                let held = state.withLock { state -> Bool in
                    state.entered += 1
                    return state.held
                }
                if held { gate.wait() }
                let status: Int32 = state.withLock { state in
                    defer { state.returned += 1 }
                    guard state.failures > 0 else { return 0 }
                    state.failures -= 1
                    return EIO
                }
                return status == 0 ? SQLiteWALFile.dataSync(descriptor) : status
            }
        }

        /// Waits (up to 5 s) until `entered` reaches `count`.
        func waitUntilEntered(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(5)
            while entered < count {
                if Date() > deadline { return false }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return true
        }
    }

    static func record(_ user: String = "user-1") -> SignatureRecord {
        SignatureRecord(nonce: UUID().uuidString.lowercased(), format: .legacy, bundleId: "com.example.app", productId: "pro",
                        offerId: "offer-1", userId: user, keyId: "KEY", timestamp: 1_800_000_000_000, signature: "sig",
                        apiKeyName: "client", requestId: "req", recordedAt: 1_800_000_000_000)
    }

    /// Runs `body` on a thread of its own; the result once it returned.
    final class Background<T: Sendable>: Sendable {
        private let outcome = Mutex<T?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping @Sendable () -> T) {
            Thread { [self] in
                let value = body()
                outcome.withLock { $0 = value }
                done.signal()
            }.start()
        }

        var finished: Bool { outcome.withLock { $0 != nil } }

        func wait(seconds: Double = 10) -> T? {
            guard done.wait(timeout: .now() + seconds) == .success else { return nil }
            return outcome.withLock { $0 }
        }
    }

    @Test("an append returns only after a sync of the WAL that began after its commit has returned; the writer commits the next batch meanwhile, and no more")
    func answeredAfterTheSync() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let sync = GatedSync()
        let database = try SQLiteDatabase(path: temp.path, walSync: sync.sync)
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        _ = try log.append(Self.record(), quota: nil)  // the syncer's thread started, the WAL open
        let before = sync.returned
        #expect(before >= 1)

        sync.hold()
        let first = Background { () -> Int64? in
            (try? log.append(Self.record("user-a"), quota: nil))?.sequence
        }
        #expect(sync.waitUntilEntered(before + 1), "the batch was committed and handed to the syncer")
        // The writer is not waiting for that sync: the next batch commits while it is held.
        let second = Background { () -> Int64? in
            (try? log.append(Self.record("user-b"), quota: nil))?.sequence
        }
        let deadline = Date().addingTimeInterval(5)
        var committed: Int64 = 0
        while committed < 3, Date() < deadline {
            committed = try database.read { db in try db.scalar("SELECT COUNT(*) FROM signatures") } ?? 0
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(committed == 3, "the second batch committed while the first one's sync was held")
        // But no further one: the writer keeps at most one batch ahead of the syncs begun.
        let third = Background { () -> Int64? in
            (try? log.append(Self.record("user-c"), quota: nil))?.sequence
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!first.finished && !second.finished && !third.finished, "no caller answered before the sync returned")
        #expect(sync.returned == before)
        #expect(try database.read { db in try db.scalar("SELECT COUNT(*) FROM signatures") } == 3,
                "the third batch waits for a sync that covers the second to begin")

        sync.release()
        #expect(first.wait() == 2)
        #expect(second.wait() == 3)
        #expect(third.wait() == 4)
        #expect(sync.returned > before)
        #expect(try log.verifyIntegrity().ok)
    }

    @Test("a failed sync fails its batch and every later append, even once syncs succeed again; readiness says why")
    func failedSyncIsFinal() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let sync = GatedSync()
        let database = try SQLiteDatabase(path: temp.path, walSync: sync.sync)
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        _ = try log.append(Self.record(), quota: nil)
        #expect(log.readiness().isReady)

        sync.fail(next: 1)
        let failed = attempt { () throws(SignatureLogError) in try log.append(Self.record(), quota: nil) }
        guard case .failure(.unavailable(let reason)) = failed else {
            Issue.record("an append whose sync failed must fail, got \(failed)")
            return
        }
        #expect(reason.contains("fdatasync") && reason.contains("Input/output error"))
        // The sync function would succeed now: the log still refuses, as does any write.
        for _ in 0..<3 {
            let later = attempt { () throws(SignatureLogError) in try log.append(Self.record(), quota: nil) }
            guard case .failure(.unavailable) = later else {
                Issue.record("an append after a failed sync must fail, got \(later)")
                return
            }
        }
        #expect(throws: SQLiteError.self) { try database.write { db in try db.run("CREATE TABLE later (x)") } }
        guard case .notReady(let why) = log.readiness() else {
            Issue.record("a log whose WAL could not be synced must not be ready")
            return
        }
        #expect(why.contains("could not be synced") && why.contains("restart"))
        Thread.sleep(forTimeInterval: SQLiteSignatureLog.probeInterval.seconds + 0.1)
        #expect(!log.readiness().isReady, "no probe write turns it on again")
    }

    @Test("a webhook claim does not hand out the offer.signed rows of a batch whose sync has not returned")
    func claimWaitsForTheSync() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let sync = GatedSync()
        let database = try SQLiteDatabase(path: temp.path, walSync: sync.sync)
        let outbox = WebhookOutbox()
        let webhooks = try SQLWebhookStore(database: database, outbox: outbox)
        let log = try SQLiteSignatureLog(database: database, outbox: outbox)
        defer { log.close() }
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try webhooks.put(StoredWebhook(id: "crm", url: "https://hooks.example.com/crm", events: [.offerSigned], bundleIds: nil,
                                       enabled: true, secret: "whsec_crm", createdAt: t0, updatedAt: t0),
                         change: WebhookChange(webhookId: "crm", action: .created, actor: "admin", at: t0, document: nil))
        _ = try log.append(Self.record("user-a"), quota: nil)
        #expect(try webhooks.claim(limit: 10, now: Date(), lease: .seconds(30)).count == 1, "a durable batch's row is claimed")

        let before = sync.entered
        sync.hold()
        let append = Background { () -> Int64? in
            (try? log.append(Self.record("user-b"), quota: nil))?.sequence
        }
        #expect(sync.waitUntilEntered(before + 1), "the batch was committed and its sync begun")
        let pending = try database.read { db in try db.scalar("SELECT COUNT(*) FROM webhook_outbox WHERE claim IS NULL") }
        #expect(pending == 1, "the batch's event is committed, readable by the claim")
        let claim = Background { () -> Int in
            (try? webhooks.claim(limit: 10, now: Date(), lease: .seconds(30)))?.count ?? -1
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!claim.finished, "the claim waits for the batch's sync")
        #expect(!append.finished)
        sync.release()
        #expect(append.wait() == 2)
        #expect(claim.wait() == 1, "then hands the row out")
    }
}

@Suite("The durability frontier of SQLite's writer connection, and the WAL file it syncs")
struct DurabilityFrontierTests {
    @Test("a FULL commit that wrote frames moves the frontier over every earlier commit; one that wrote none does not")
    func fullCommitsMoveTheFrontier() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let syncs = Mutex(0)
        let database = try SQLiteDatabase(path: temp.path, walSync: { descriptor in
            syncs.withLock { $0 += 1 }
            return SQLiteWALFile.dataSync(descriptor)
        })
        try database.write { db in try db.run("CREATE TABLE t (x)") }
        let durable = database.walSyncer.durableThrough
        let pending = try database.writeDurableLater { db in try db.run("INSERT INTO t VALUES (1)") }
        #expect(database.walSyncer.durableThrough == durable, "a commit without its own sync is not durable when it returns")
        try database.write { db in _ = try db.scalar("SELECT COUNT(*) FROM t") }
        #expect(database.walSyncer.durableThrough == durable, "a FULL commit that wrote no frames synced nothing")
        try database.write { db in try db.run("INSERT INTO t VALUES (2)") }
        #expect(database.walSyncer.durableThrough == durable + 3, "a FULL commit with frames synced the WAL, the earlier commit's frames with it")
        let answered = DispatchSemaphore(value: 0)
        pending.durability.whenDurable { error in
            #expect(error == nil)
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 5) == .success)
        #expect(syncs.withLock { $0 } == 0, "answered without a sync of the syncer's own")
    }

    @Test("the WAL's descriptor follows the file at the path: a replaced file is synced before it is let go, the new one opened")
    func walFileFollowsThePath() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let walPath = temp.path + "-wal"
        #expect(FileManager.default.createFile(atPath: walPath, contents: Data("one".utf8)))
        let synced = Mutex<[Int32]>([])
        let file = SQLiteWALFile(databasePath: temp.path) { descriptor in
            synced.withLock { $0.append(descriptor) }
            return 0
        }
        #expect(file.syncNow() == nil)
        #expect(file.syncNow() == nil)
        let first = synced.withLock { $0 }
        #expect(first.count == 2 && first[0] == first[1], "one descriptor kept while the file stays")
        try FileManager.default.removeItem(atPath: walPath)
        #expect(FileManager.default.createFile(atPath: walPath, contents: Data("two".utf8)))
        // The old descriptor keeps the old inode alive, so the new file cannot reuse its number.
        #expect(file.syncNow() == nil)
        let after = synced.withLock { $0 }
        #expect(after.count == 4, "the old file synced once more, then the new one")
        #expect(after[2] == first[0])
        try FileManager.default.removeItem(atPath: walPath)
        #expect(file.syncNow()?.contains("No such file") == true, "no WAL at the path is a failure, not a success")
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
