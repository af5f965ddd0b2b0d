import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("Signature chain head")
struct ChainHeadTests {
    struct RolledBack: Error {}

    func record(_ nonce: String) -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "offer-1",
                        userId: "user-1", keyId: "KEY", timestamp: 1_800_000_000_000, signature: "MEUC", apiKeyName: "client",
                        requestId: "req", recordedAt: 1_800_000_000_000)
    }

    @Test("an empty log's head is the genesis link; a filled one's is its last record")
    func readsTheEnd() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let empty = try database.read { db in try ChainHead(reading: db) }
        #expect(try database.write { db in try empty.committed(db) } == .genesis)

        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        _ = try log.append(record("a"), quota: nil)
        let last = try log.append(record("b"), quota: nil)
        let head = try database.read { db in try ChainHead(reading: db) }
        #expect(try database.write { db in try head.committed(db) } == ChainHead.Link(sequence: 2, hash: last.hash))
    }

    @Test("after a batch that moved the head rolls back, the head is the last committed record again")
    func rollback() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try temp.open()
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        let last = try log.append(record("a"), quota: nil)
        let head = try database.read { db in try ChainHead(reading: db) }

        #expect(throws: RolledBack.self) {
            try database.write { db in
                try head.advance(to: ChainHead.Link(sequence: 2, hash: String(repeating: "f", count: 64)), db)
                throw RolledBack()
            }
        }
        #expect(try database.write { db in try head.committed(db) } == ChainHead.Link(sequence: 1, hash: last.hash))
        #expect(try log.verifyIntegrity().ok)
    }
}
