import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("Accepting a cut-off end as a gap")
struct TruncationTests {
    func record(_ nonce: String) -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "offer-1",
                        userId: "user-1", keyId: "KEY", timestamp: 1_800_000_000_000, signature: "MEUC", apiKeyName: "client",
                        requestId: "req", recordedAt: 1_800_000_000_000)
    }

    let acceptedAt = Date(timeIntervalSince1970: 1_800_000_100)

    @Test("the gap names the lost records, lost numbers are not reused, the chain resumes after it and stays visible")
    func acceptedGap() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        var kept: LoggedSignature?
        for n in 0..<4 {
            let logged = try log.append(record("r\(n)"), quota: nil)
            if n == 1 { kept = logged }
        }
        let lostEnd = log.committedEnd()
        try database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }

        let gap = try log.acceptTruncation(by: "cli:ops", reason: "restored the 02:00 snapshot", at: acceptedAt)
        #expect(gap.sequence == 5 && gap.lostFrom == 3)
        #expect(gap.resumedAfter == ChainLink(sequence: 2, hash: kept!.hash))
        #expect(gap.lostThrough == lostEnd)
        #expect(gap.summary.contains("records 3–4 were lost") && gap.summary.contains("cli:ops"))

        let next = try log.append(record("after"), quota: nil)
        #expect(next.sequence == 6 && next.previousHash == gap.hash)
        let report = try log.verifyIntegrity(IntegrityOptions(checkpoints: [lostEnd]))
        #expect(report.ok, "\(report.problem ?? "")")
        #expect(report.records == 3 && report.gaps == [gap])
        #expect(report.checkpointsMatched == 1, "a checkpoint of the lost end matches what the gap says was lost")
        #expect(log.readiness().isReady)
    }

    @Test("removing or changing an accepted gap breaks the chain")
    func gapIsPartOfTheChain() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        for n in 0..<3 { _ = try log.append(record("r\(n)"), quota: nil) }
        try database.write { db in try db.run("DELETE FROM signatures WHERE seq = 3") }
        let gap = try log.acceptTruncation(by: "cli:ops", reason: "lost", at: acceptedAt)
        _ = try log.append(record("after"), quota: nil)

        try database.write { db in try db.run("UPDATE signature_log_gaps SET reason = 'nothing happened'") }
        var report = try log.verifyIntegrity()
        #expect(!report.ok && report.firstBadSequence == gap.sequence)
        try database.write { db in try db.run("UPDATE signature_log_gaps SET reason = 'lost'") }
        #expect(try log.verifyIntegrity().ok)

        try database.write { db in try db.run("DELETE FROM signature_log_gaps") }
        report = try log.verifyIntegrity()
        #expect(!report.ok && report.firstBadSequence == gap.sequence + 1)
    }

    @Test("with the end row lost too, the gap takes the furthest stored checkpoint as the lost end, or says the loss is unknown")
    func endRowLostToo() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        for n in 0..<5 { _ = try log.append(record("r\(n)"), quota: nil) }
        let four = try #require(try log.signatures(matching: SignatureFilter(), afterSequence: 3, limit: 1).first)
        log.close()
        try SQLiteCheckpointStore(database: database).add(AuditCheckpoint(sequence: 4, chainHash: four.hash, timestamp: 1, keyId: "A", signature: "x"))
        try database.write { db in
            try db.run("DELETE FROM signatures WHERE seq >= 3")
            try db.run("DELETE FROM signature_chain_head")
        }
        let reopened = try SQLiteSignatureLog(database: database)
        defer { reopened.close() }
        let gap = try reopened.acceptTruncation(by: "cli:ops", reason: "lost", at: acceptedAt)
        #expect(gap.lostThrough == ChainLink(sequence: 4, hash: four.hash) && gap.sequence == 5)
        #expect(try reopened.append(record("after"), quota: nil).sequence == 6)

        let other = TemporaryDatabase()
        defer { other.cleanup() }
        let bare = try other.open()
        let bareLog = try SQLiteSignatureLog(database: bare)
        defer { bareLog.close() }
        for n in 0..<3 { _ = try bareLog.append(record("b\(n)"), quota: nil) }
        try bare.write { db in
            try db.run("DELETE FROM signatures WHERE seq = 3")
            try db.run("DELETE FROM signature_chain_head")
        }
        let unknown = try bareLog.acceptTruncation(by: "cli:ops", reason: "lost", at: acceptedAt)
        // This process committed record 3, so even the unknown end is known here.
        #expect(unknown.lostThrough?.sequence == 3 && unknown.sequence == 4)
    }

    @Test("refused when nothing was lost, when a record was changed, or when the end moved forward")
    func refusals() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        for n in 0..<4 { _ = try log.append(record("r\(n)"), quota: nil) }
        #expect {
            try log.acceptTruncation(by: "cli:ops", reason: "why not", at: acceptedAt)
        } throws: { error in
            if case TruncationRefusal.nothingLost = error { return true }
            return false
        }
        try database.write { db in
            try db.run("UPDATE signatures SET user_id = 'mallory' WHERE seq = 2")
            try db.run("DELETE FROM signatures WHERE seq = 4")
        }
        #expect {
            try log.acceptTruncation(by: "cli:ops", reason: "cover it up", at: acceptedAt)
        } throws: { error in
            if case TruncationRefusal.keptRecordsBroken(let sequence, _) = error { return sequence == 2 }
            return false
        }
        // Opened afresh (as `offer-signer audit accept-truncation` does), with an end moved back
        // onto records that are all there: not a loss.
        try database.write { db in
            try db.run("UPDATE signatures SET user_id = 'user-1' WHERE seq = 2")
            try db.run("UPDATE signature_chain_head SET seq = 1")
        }
        let offline = try SQLiteSignatureLog(database: database)
        defer { offline.close() }
        #expect {
            try offline.acceptTruncation(by: "cli:ops", reason: "cover it up", at: acceptedAt)
        } throws: { error in
            if case TruncationRefusal.notATruncation = error { return true }
            return false
        }
        #expect(try database.read { db in try db.scalar("SELECT COUNT(*) FROM signature_log_gaps") } == 0)
    }
}
