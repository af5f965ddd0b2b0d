import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("Signature chain end")
struct ChainHeadTests {
    struct RolledBack: Error {}

    func record(_ nonce: String) -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "offer-1",
                        userId: "user-1", keyId: "KEY", timestamp: 1_800_000_000_000, signature: "MEUC", apiKeyName: "client",
                        requestId: "req", recordedAt: 1_800_000_000_000)
    }

    /// A log of `count` records, with its database.
    func filledLog(_ temp: TemporaryDatabase, count: Int) throws -> (SQLiteDatabase, SQLiteSignatureLog) {
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        for n in 0..<count { _ = try log.append(record("r\(n)"), quota: nil) }
        return (database, log)
    }

    func recordedEnd(_ database: SQLiteDatabase) throws -> ChainLink? {
        try database.read { db in try ChainHead.read(db).recorded }
    }

    @Test("an empty log ends at genesis with no recorded end; a filled one at its last record, recorded")
    func readsTheEnd() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let empty = try database.read { db in try ChainHead.read(db) }
        #expect(empty.last == .genesis && empty.recorded == nil && empty.mismatch == nil)

        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        _ = try log.append(record("a"), quota: nil)
        let last = try log.append(record("b"), quota: nil)
        let state = try database.read { db in try ChainHead.read(db) }
        #expect(state.last == ChainLink(sequence: 2, hash: last.hash))
        #expect(state.recorded == state.last && state.mismatch == nil)
        #expect(log.committedEnd() == state.last)
    }

    @Test("a batch that rolls back leaves the recorded end where the last commit put it")
    func rollback() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let (database, log) = try filledLog(temp, count: 1)
        defer { log.close() }
        let before = try recordedEnd(database)
        #expect(throws: RolledBack.self) {
            try database.write { db in
                try ChainHead.record(ChainLink(sequence: 2, hash: String(repeating: "f", count: 64)), db)
                throw RolledBack()
            }
        }
        #expect(try recordedEnd(database) == before)
        #expect(try log.append(record("next"), quota: nil).sequence == 2)
        #expect(try log.verifyIntegrity().ok)
    }

    @Test("records cut off the end are never forgotten: the next append is refused and the recorded end stays")
    func cutTailRefusesAppends() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let (database, log) = try filledLog(temp, count: 4)
        defer { log.close() }
        let recorded = try recordedEnd(database)
        try database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }

        guard case .failure(.endMismatch(let mismatch)) = attempt({ () throws(SignatureLogError) in try log.append(record("after"), quota: nil) }) else {
            Issue.record("an append after the tail was cut must be refused")
            return
        }
        #expect(mismatch.recorded?.sequence == 4 && mismatch.last.sequence == 2 && mismatch.isTruncation)
        #expect(try recordedEnd(database) == recorded, "the recorded end is not overwritten")
        #expect(try log.signature(nonce: "after") == nil)
        let report = try log.verifyIntegrity()
        #expect(!report.ok && report.records == 2)
        #expect(report.problem?.contains("removed from its end") == true)
        #expect(!log.readiness().isReady)
        // Still refused later: the evidence stays until an operator acts.
        #expect(throws: SignatureLogError.self) { try log.append(record("later"), quota: nil) }
    }

    @Test("a missing end row counts as tampering once records exist, alone or with the tail")
    func missingEndRow() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let (database, log) = try filledLog(temp, count: 4)
        defer { log.close() }
        try database.write { db in try db.run("DELETE FROM signature_chain_head") }
        var report = try log.verifyIntegrity()
        #expect(!report.ok && report.problem?.contains("recorded end of the chain is missing") == true)
        #expect(throws: SignatureLogError.self) { try log.append(record("x"), quota: nil) }

        try database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }
        report = try log.verifyIntegrity()
        #expect(!report.ok && report.records == 2)
        // The running service remembers committing record 4, so it is named even without the row.
        guard case .failure(.endMismatch(let mismatch)) = attempt({ () throws(SignatureLogError) in try log.append(record("y"), quota: nil) }) else {
            Issue.record("expected the append to be refused")
            return
        }
        #expect(mismatch.vouched?.sequence == 4)
    }

    @Test("a log reopened after its tail and end row were deleted refuses appends when a stored checkpoint vouches for more")
    func reopenedAfterWipe() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        do {
            let (database, log) = try filledLog(temp, count: 3)
            try SQLiteCheckpointStore(database: database).add(AuditCheckpoint(
                sequence: 3, chainHash: log.committedEnd().hash, timestamp: 1, keyId: "AUDIT", signature: "c2ln"))
            log.close()
            try database.write { db in
                try db.run("DELETE FROM signatures")
                try db.run("DELETE FROM signature_chain_head")
            }
        }
        let log = try SQLiteSignatureLog(database: try temp.open())
        defer { log.close() }
        #expect(!log.readiness().isReady)
        #expect(throws: SignatureLogError.self) { try log.append(record("fresh"), quota: nil) }
    }

    @Test("records added past the recorded end are refused too")
    func recordsAddedBehindTheServicesBack() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let (database, log) = try filledLog(temp, count: 2)
        defer { log.close() }
        try database.write { db in try db.run("UPDATE signature_chain_head SET seq = 1") }
        guard case .failure(.endMismatch(let mismatch)) = attempt({ () throws(SignatureLogError) in try log.append(record("z"), quota: nil) }) else {
            Issue.record("expected the append to be refused")
            return
        }
        #expect(!mismatch.isTruncation)
    }
}
