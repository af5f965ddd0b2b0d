import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("Signature log readiness")
struct ReadinessTests {
    func record(_ nonce: String = UUID().uuidString.lowercased(), size: Int = 2000) -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "offer-1",
                        userId: "user-1", keyId: "KEY", timestamp: 1_800_000_000_000, signature: String(repeating: "A", count: size),
                        apiKeyName: "client", requestId: "req", recordedAt: 1_800_000_000_000)
    }

    @Test("not ready once a durable append failed (disk full), ready again once a write succeeds, even with no traffic")
    func failedAppendThenRecovery() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.openNearlyFull()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        #expect(log.readiness().isReady)
        var failed = false
        for _ in 0..<2000 {
            if case .failure(.unavailable) = attempt({ () throws(SignatureLogError) in try log.append(record(), quota: nil) }) {
                failed = true
                break
            }
        }
        #expect(failed, "the capped file fills up")
        guard case .notReady(let reason) = log.readiness() else {
            Issue.record("a log whose last append failed must not say it is ready")
            return
        }
        #expect(reason.contains("full"))
        // Still full: a probe a second later fails too.
        Thread.sleep(forTimeInterval: 1.1)
        #expect(!log.readiness().isReady)

        // The operator frees space; no request comes while the load balancer keeps traffic away,
        // yet the next readiness check (a probe write) finds the log writable.
        _ = try database.write { db in try db.scalar("PRAGMA max_page_count=100000") }
        Thread.sleep(forTimeInterval: 1.1)
        #expect(log.readiness() == .ready)
        #expect(try log.append(record(), quota: nil).sequence > 0)
        #expect(log.readiness() == .ready)
        #expect(try log.verifyIntegrity().ok)
    }

    @Test("not ready on the very first failed append, even when a small write (the readiness probe) still fits")
    func notReadyOnFirstFailure() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.openNearlyFull(extraPages: 40)
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        #expect(log.readiness().isReady)
        var appended = 0
        var failed = false
        for _ in 0..<200 {
            // Large records: the one that no longer fits leaves room for a probe's 4 KiB.
            if case .failure(.unavailable) = attempt({ () throws(SignatureLogError) in try log.append(record(size: 60_000), quota: nil) }) {
                failed = true
                break
            }
            appended += 1
        }
        #expect(failed && appended > 0, "the capped file fills up after \(appended) appends")
        #expect(!log.readiness().isReady, "the first failed append turns readiness off at once")
        #expect(!log.readiness().isReady, "and a check right after it still says so")
    }

    @Test("a successful append clears a failure at once")
    func appendRecovers() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.openNearlyFull()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        while case .success = attempt({ () throws(SignatureLogError) in try log.append(record(), quota: nil) }) {}
        _ = try database.write { db in try db.scalar("PRAGMA max_page_count=100000") }
        _ = try log.append(record(size: 10), quota: nil)
        #expect(log.readiness() == .ready)
    }

    @Test("a nonce used twice refuses that append but leaves the log ready")
    func constraintIsNotUnavailability() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        _ = try log.append(record("same"), quota: nil)
        #expect(throws: SignatureLogError.self) { try log.append(record("same"), quota: nil) }
        #expect(log.readiness() == .ready)
    }
}
