import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("SQLite reader pool")
struct ReaderPoolTests {
    @Test("many concurrent reads share a bounded set of connections and all succeed")
    func bounded() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let database = try SQLiteDatabase(path: temp.path, maxReaders: 2)
        let peak = LockedArray<Int>()
        let inside = LockedArray<Int>()
        DispatchQueue.concurrentPerform(iterations: 40) { _ in
            let value = try? database.read { db -> Int64? in
                inside.append(1)
                peak.append(inside.values.count)
                Thread.sleep(forTimeInterval: 0.002)
                defer { inside.removeOne() }
                return try db.scalar("SELECT 41 + 1")
            }
            #expect(value == 42)
        }
        #expect((peak.values.max() ?? 0) <= 2)
    }
}
