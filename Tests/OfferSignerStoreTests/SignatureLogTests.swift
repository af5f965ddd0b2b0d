import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

/// What only the SQLite log does (a file that fills up); the rest is in the storage contract.
@Suite("SQLite signature log")
struct SignatureLogTests {
    func record(nonce: String = UUID().uuidString.lowercased(), user: String = "user-1", offer: String = "offer-1",
                timestamp: Int64 = 1_800_000_000_000, bundle: String = "com.example.app") -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: .legacy, bundleId: bundle, productId: "pro", offerId: offer,
                        userId: user, keyId: "KEY", timestamp: timestamp, signature: "MEUC", apiKeyName: "client",
                        requestId: "req", recordedAt: timestamp)
    }

    @Test("a full disk refuses the append as unavailable and loses nothing committed")
    func diskFull() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open(maxPageCount: 90)  // the schema (16 migrations) and room for a few records
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        var committed: [String] = []
        var refusal: SignatureLogError?
        for _ in 0..<2000 {
            let nonce = UUID().uuidString.lowercased()
            var big = record(nonce: nonce)
            big.signature = String(repeating: "A", count: 2000)
            if case .failure(let error) = attempt({ () throws(SignatureLogError) in try log.append(big, quota: nil) }) {
                refusal = error
                break
            }
            committed.append(nonce)
        }
        guard case .unavailable(let reason) = refusal else {
            Issue.record("expected the log to fill up and refuse")
            return
        }
        #expect(reason.contains("full"))
        for nonce in committed { #expect(try log.signature(nonce: nonce) != nil) }
        #expect(try log.verifyIntegrity().records == committed.count)
    }

    @Test("the WAL is checkpointed by its own thread, not by the writer, and every record stays")
    func checkpointsOffTheWriter() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        // One append a batch: each commit appends a few frames, so a few hundred pass the
        // checkpoint threshold several times over (and stay far below the writer's bound).
        var appended = 0
        while database.writerStatistics.snapshot.walFrames < 3 * SQLiteCheckpointer.threshold {
            _ = try log.append(record(), quota: nil)
            appended += 1
        }
        #expect(database.writerStatistics.snapshot.writerCheckpoints == 0, "the writer checkpointed the WAL itself")
        let deadline = ContinuousClock.now + .seconds(120)
        while database.writerStatistics.snapshot.backgroundCheckpoints == 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let statistics = database.writerStatistics.snapshot
        #expect(statistics.backgroundCheckpoints > 0)
        #expect(statistics.records == appended && statistics.batches == appended)
        #expect(try log.verifyIntegrity().records == appended)
    }

    @Test("while the WAL cannot start again, a background checkpoint is asked for once per threshold frames, not after every commit")
    func checkpointOncePerThreshold() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        _ = try log.append(record(), quota: nil)
        // A reader in the WAL keeps it from starting again from its beginning, as a steady
        // load of signing requests does.
        let reader = try SQLiteConnection(path: temp.path, readOnly: true)
        try reader.execute("BEGIN; SELECT count(*) FROM signatures;")
        defer { try? reader.execute("COMMIT") }
        while database.writerStatistics.snapshot.walFrames < 3 * SQLiteCheckpointer.threshold + 100 {
            _ = try log.append(record(), quota: nil)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while database.writerStatistics.snapshot.backgroundCheckpoints == 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: 0.2)
        let statistics = database.writerStatistics.snapshot
        // One at ~1,000, ~2,000 and ~3,000 frames (fewer if two asks met one run; the writer's bound is far).
        #expect((1...3).contains(statistics.backgroundCheckpoints), "background checkpoints: \(statistics.backgroundCheckpoints)")
        #expect(statistics.writerCheckpoints == 0)
    }
}

/// The outcome of an append, as a value.
func attempt(_ body: () throws(SignatureLogError) -> LoggedSignature) -> Result<LoggedSignature, SignatureLogError> {
    do {
        return .success(try body())
    } catch {
        return .failure(error)
    }
}

/// An array appended to from many threads.
final class LockedArray<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    func removeOne() { storage.withLock { _ = $0.popLast() } }
    var values: [Element] { storage.withLock { $0 } }
}
