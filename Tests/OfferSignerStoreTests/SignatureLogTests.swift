import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

@Suite("SQLite signature log")
struct SignatureLogTests {
    func record(nonce: String = UUID().uuidString.lowercased(), user: String = "user-1", offer: String = "offer-1",
                timestamp: Int64 = 1_800_000_000_000, bundle: String = "com.example.app") -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: .legacy, bundleId: bundle, productId: "pro", offerId: offer,
                        userId: user, keyId: "KEY", timestamp: timestamp, signature: "MEUC", apiKeyName: "client",
                        requestId: "req", recordedAt: timestamp)
    }

    @Test("concurrent appends are all committed, in one consecutive intact chain")
    func concurrentAppends() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        let nonces = (0..<200).map { _ in UUID().uuidString.lowercased() }
        let sequences = LockedArray<Int64>()
        DispatchQueue.concurrentPerform(iterations: nonces.count) { index in
            if let logged = try? log.append(record(nonce: nonces[index]), quota: nil) { sequences.append(logged.sequence) }
        }
        #expect(sequences.values.sorted() == Array(1...200))
        for nonce in nonces.prefix(10) {
            #expect(try log.signature(nonce: nonce)?.record.nonce == nonce)
        }
        let report = try log.verifyIntegrity()
        #expect(report.ok && report.records == 200)
    }

    @Test("a nonce already in the log is refused, and the log stays usable")
    func duplicateNonce() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        _ = try log.append(record(nonce: "same"), quota: nil)
        #expect(throws: SignatureLogError.self) { try log.append(record(nonce: "same"), quota: nil) }
        let next = try log.append(record(), quota: nil)
        #expect(next.sequence == 2)
        #expect(try log.verifyIntegrity().ok)
    }

    @Test("records survive reopening, and the chain continues from the last one")
    func reopen() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        do {
            let log = try SQLiteSignatureLog(database: try temp.open())
            _ = try log.append(record(nonce: "first"), quota: nil)
            log.close()
        }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        let second = try log.append(record(nonce: "second"), quota: nil)
        #expect(second.sequence == 2)
        #expect(second.previousHash == (try log.signature(nonce: "first")?.hash))
        #expect(try log.verifyIntegrity().ok)
    }

    @Test("the per-user quota is enforced inside the commit, even under concurrency")
    func quota() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        let quota = SignatureQuota(maxCount: 3)
        let accepted = LockedArray<Int>()
        let refusedRetry = LockedArray<Int>()
        DispatchQueue.concurrentPerform(iterations: 10) { index in
            switch attempt({ () throws(SignatureLogError) in try log.append(record(timestamp: 1_800_000_000_000 + Int64(index)), quota: quota) }) {
            case .success: accepted.append(index)
            case .failure(.quotaExceeded(let seconds)): refusedRetry.append(seconds)
            case .failure: break
            }
        }
        #expect(accepted.values.count == 3)
        #expect(refusedRetry.values.count == 7)
        #expect(refusedRetry.values.allSatisfy { $0 > 86_000 && $0 <= 86_400 })
        // Another user, another offer, or the same offer ID in another app has its own quota;
        // a day later the quota is free again.
        _ = try log.append(record(user: "user-2"), quota: quota)
        _ = try log.append(record(offer: "offer-2"), quota: quota)
        _ = try log.append(record(bundle: "com.example.other"), quota: quota)
        _ = try log.append(record(timestamp: 1_800_000_000_000 + 86_400_000 + 10), quota: quota)
    }

    @Test("customers without an app account token (empty userId) each have the quota of their proven subscription")
    func quotaWithoutToken() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        let quota = SignatureQuota(maxCount: 1)
        func tokenless(_ subscription: String?) -> SignatureRecord {
            var tokenless = record(user: "")
            tokenless.transactionId = subscription
            return tokenless
        }
        _ = try log.append(tokenless("2000000000000001"), quota: quota)
        #expect(throws: SignatureLogError.self) { try log.append(tokenless("2000000000000001"), quota: quota) }
        _ = try log.append(tokenless("2000000000000002"), quota: quota)
        // A user with a token is counted by the token alone, whatever transaction is logged.
        var first = record(user: "user-1")
        first.transactionId = "2000000000000003"
        _ = try log.append(first, quota: quota)
        var second = record(user: "user-1")
        second.transactionId = "2000000000000004"
        #expect(throws: SignatureLogError.self) { try log.append(second, quota: quota) }
    }

    @Test("a full disk refuses the append as unavailable and loses nothing committed")
    func diskFull() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open(maxPageCount: 40)
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

    @Test("integrity check names the first changed, removed or reordered record")
    func tamperingInTheFile() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        for n in 0..<6 { _ = try log.append(record(nonce: "n\(n)"), quota: nil) }
        #expect(try log.verifyIntegrity().ok)

        try database.write { db in try db.run("UPDATE signatures SET user_id = 'mallory' WHERE seq = 4") }
        var report = try log.verifyIntegrity()
        #expect(!report.ok)
        #expect(report.firstBadRecord?.sequence == 4)
        #expect(report.records == 6)
        try database.write { db in try db.run("UPDATE signatures SET user_id = 'user-1' WHERE seq = 4") }
        #expect(try log.verifyIntegrity().ok)

        try database.write { db in try db.run("UPDATE signatures SET format = 'free' WHERE seq = 5") }
        report = try log.verifyIntegrity()
        #expect(!report.ok && report.problem == "record 5 cannot be read: its format 'free' is not one this service writes: it was changed after it was written")
        try database.write { db in try db.run("UPDATE signatures SET format = 'legacy' WHERE seq = 5") }
        #expect(try log.verifyIntegrity().ok)

        try database.write { db in try db.run("DELETE FROM signatures WHERE seq = 2") }
        report = try log.verifyIntegrity()
        #expect(report.firstBadRecord?.sequence == 3)
        #expect(report.problem?.contains("missing") == true)
    }

    @Test("records removed from the end of the log are found too")
    func truncatedTail() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        for n in 0..<4 { _ = try log.append(record(nonce: "t\(n)"), quota: nil) }
        try database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }
        let report = try log.verifyIntegrity()
        #expect(!report.ok)
        #expect(report.records == 2)
        #expect(report.problem?.contains("removed from its end") == true)
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
