import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// The storage contract: the same tests against every engine (SQLite in a temporary file,
/// PostgreSQL in the throwaway cluster).
enum StorageContract {}

extension StorageContract {
    @Suite("Storage contract: signature log")
    struct SignatureLogContract {
        func record(nonce: String = UUID().uuidString.lowercased(), user: String = "user-1", offer: String = "offer-1",
                    timestamp: Int64 = 1_800_000_000_000, bundle: String = "com.example.app") -> SignatureRecord {
            SignatureRecord(nonce: nonce, format: .legacy, bundleId: bundle, productId: "pro", offerId: offer,
                            userId: user, keyId: "KEY", timestamp: timestamp, signature: "MEUC", apiKeyName: "client",
                            requestId: "req", recordedAt: timestamp)
        }

        @Test("concurrent appends are all committed, in one consecutive intact chain", arguments: Engine.allCases)
        func concurrentAppends(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
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

        @Test("a nonce already in the log is refused, and the log stays usable", arguments: Engine.allCases)
        func duplicateNonce(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            _ = try log.append(record(nonce: "same"), quota: nil)
            #expect(throws: SignatureLogError.self) { try log.append(record(nonce: "same"), quota: nil) }
            let next = try log.append(record(), quota: nil)
            #expect(next.sequence == 2)
            #expect(try log.verifyIntegrity().ok)
        }

        @Test("records survive reopening, and the chain continues from the last one", arguments: Engine.allCases)
        func reopen(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            do {
                let stores = try database.open()
                _ = try stores.signatures.append(record(nonce: "first"), quota: nil)
                stores.close()
            }
            let stores = try database.open()
            defer { stores.close() }
            let second = try stores.signatures.append(record(nonce: "second"), quota: nil)
            #expect(second.sequence == 2)
            #expect(second.previousHash == (try stores.signatures.signature(nonce: "first")?.hash))
            #expect(try stores.signatures.verifyIntegrity().ok)
        }

        @Test("the per-user quota is enforced inside the commit, even under concurrency", arguments: Engine.allCases)
        func quota(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
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

        @Test("customers without an app account token (empty userId) each have the quota of their proven subscription",
              arguments: Engine.allCases)
        func quotaWithoutToken(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
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

        @Test("audit queries filter by user, offer, app and time, oldest first, from a sequence on", arguments: Engine.allCases)
        func queries(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            for n in 0..<6 {
                _ = try log.append(record(nonce: "q\(n)", user: n % 2 == 0 ? "even" : "odd", timestamp: 1_800_000_000_000 + Int64(n) * 1000,
                                          bundle: n < 4 ? "com.example.app" : "com.example.other"), quota: nil)
            }
            #expect(try log.signatures(matching: SignatureFilter(userId: "even"), afterSequence: 0, limit: 10).map(\.sequence) == [1, 3, 5])
            #expect(try log.signatures(matching: SignatureFilter(userId: "even"), afterSequence: 1, limit: 1).map(\.sequence) == [3])
            #expect(try log.signatures(matching: SignatureFilter(bundleId: "com.example.other"), afterSequence: 0, limit: 10).count == 2)
            let window = SignatureFilter(fromTimestamp: 1_800_000_001_000, toTimestamp: 1_800_000_003_000)
            #expect(try log.signatures(matching: window, afterSequence: 0, limit: 10).map(\.record.nonce) == ["q1", "q2"])
            #expect(try log.signatures(matching: SignatureFilter(offerId: "none"), afterSequence: 0, limit: 10).isEmpty)
            #expect(try log.signature(nonce: "missing") == nil)
            #expect(log.readiness().isReady)
        }

        @Test("integrity check names the first changed, removed or reordered record", arguments: Engine.allCases)
        func tampering(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            for n in 0..<6 { _ = try log.append(record(nonce: "n\(n)"), quota: nil) }
            #expect(try log.verifyIntegrity().ok)

            try database.execute("UPDATE signatures SET user_id = 'mallory' WHERE seq = 4")
            var report = try log.verifyIntegrity()
            #expect(!report.ok)
            #expect(report.firstBadRecord?.sequence == 4)
            #expect(report.records == 6)
            try database.execute("UPDATE signatures SET user_id = 'user-1' WHERE seq = 4")
            #expect(try log.verifyIntegrity().ok)

            try database.execute("UPDATE signatures SET format = 'free' WHERE seq = 5")
            report = try log.verifyIntegrity()
            #expect(!report.ok && report.problem == "record 5 cannot be read: its format 'free' is not one this service writes: it was changed after it was written")
            try database.execute("UPDATE signatures SET format = 'legacy' WHERE seq = 5")
            #expect(try log.verifyIntegrity().ok)

            // Two records swapped (their sequence numbers exchanged) break the chain where the first stands.
            try database.execute("UPDATE signatures SET seq = -1 WHERE seq = 2; UPDATE signatures SET seq = 2 WHERE seq = 3; UPDATE signatures SET seq = 3 WHERE seq = -1")
            report = try log.verifyIntegrity()
            #expect(report.firstBadRecord?.sequence == 2)
            try database.execute("UPDATE signatures SET seq = -1 WHERE seq = 2; UPDATE signatures SET seq = 2 WHERE seq = 3; UPDATE signatures SET seq = 3 WHERE seq = -1")
            #expect(try log.verifyIntegrity().ok)

            try database.execute("DELETE FROM signatures WHERE seq = 2")
            report = try log.verifyIntegrity()
            #expect(report.firstBadRecord?.sequence == 3)
            #expect(report.problem?.contains("missing") == true)
        }

        @Test("records removed from the end of the log are found too", arguments: Engine.allCases)
        func truncatedTail(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            for n in 0..<4 { _ = try stores.signatures.append(record(nonce: "t\(n)"), quota: nil) }
            try database.execute("DELETE FROM signatures WHERE seq >= 3")
            let report = try stores.signatures.verifyIntegrity()
            #expect(!report.ok)
            #expect(report.records == 2)
            #expect(report.problem?.contains("removed from its end") == true)
        }

        @Test("an empty log is intact", arguments: Engine.allCases)
        func empty(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            #expect(try stores.signatures.verifyIntegrity() == IntegrityReport(ok: true, records: 0))
        }

        @Test("a cut-off end refuses appends and readiness until accepted as a gap; the chain then resumes after it",
              arguments: Engine.allCases)
        func acceptedTruncation(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            for n in 0..<4 { _ = try log.append(record(nonce: "c\(n)"), quota: nil) }
            let lostEnd = log.committedEnd()
            try database.execute("DELETE FROM signatures WHERE seq >= 3")
            #expect(throws: SignatureLogError.self) { try log.append(record(nonce: "refused"), quota: nil) }
            #expect(!log.readiness().isReady)

            let gap = try log.acceptTruncation(by: "cli:ops", reason: "restored a snapshot", at: Date(timeIntervalSince1970: 1_800_000_100))
            #expect(gap.sequence == 5 && gap.lostFrom == 3 && gap.lostThrough == lostEnd)
            let next = try log.append(record(nonce: "after"), quota: nil)
            #expect(next.sequence == 6 && next.previousHash == gap.hash)
            let report = try log.verifyIntegrity(IntegrityOptions(checkpoints: [lostEnd]))
            #expect(report.ok, "\(report.problem ?? "")")
            #expect(report.records == 3 && report.gaps == [gap] && report.checkpointsMatched == 1)
            #expect(log.readiness().isReady)
            try database.execute("UPDATE signature_log_gaps SET reason = 'nothing happened'")
            #expect(try log.verifyIntegrity().firstBadSequence == gap.sequence)
        }

        @Test("checkpoints are stored and listed in order, the furthest one is the latest", arguments: Engine.allCases)
        func checkpoints(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            for sequence: Int64 in [3, 7, 5] {
                try stores.checkpoints.add(AuditCheckpoint(sequence: sequence, chainHash: String(repeating: "a", count: 64),
                                                           timestamp: 1_800_000_000_000 + sequence, keyId: "AUDIT", signature: "sig\(sequence)"))
            }
            let all = try stores.checkpoints.checkpoints(afterId: 0, limit: 10)
            #expect(all.map(\.checkpoint.sequence) == [3, 7, 5])
            #expect(try stores.checkpoints.checkpoints(afterId: all[0].id, limit: 1).map(\.checkpoint.sequence) == [7])
            #expect(try stores.checkpoints.latest()?.signature == "sig7")
        }
    }
}
