import Foundation
import Testing
@testable import OfferSignerStore

@Suite("App Store sync records")
struct AppStoreSyncStoreTests {
    @Test("backfill entries: done IDs found among many, per app; a later outcome replaces an earlier one; kept across reopening")
    func backfill() throws {
        let temporary = TemporaryDatabase()
        defer { temporary.cleanup() }
        var store = SQLiteAppStoreSyncStore(database: try temporary.open())
        try store.recordBackfill([
            BackfillEntry(bundleId: "a", transactionId: "1", outcome: .fetched, environment: "Production", finishedAt: 10),
            BackfillEntry(bundleId: "a", transactionId: "2", outcome: .covered, environment: "Production", coveredBy: "1", finishedAt: 10),
            BackfillEntry(bundleId: "b", transactionId: "3", outcome: .notFound, environment: nil, finishedAt: 10),
        ])
        #expect(try store.backfilled(bundleId: "a", among: ["1", "2", "3", "4"]) == ["1", "2"])
        #expect(try store.backfilled(bundleId: "b", among: ["1", "3"]) == ["3"])
        #expect(try store.backfilled(bundleId: "a", among: []) == [])
        let many = (0..<20_000).map(String.init)
        #expect(try store.backfilled(bundleId: "a", among: many) == ["1", "2"])
        try store.recordBackfill([BackfillEntry(bundleId: "a", transactionId: "2", outcome: .fetched, environment: "Sandbox", finishedAt: 20)])
        store = SQLiteAppStoreSyncStore(database: try temporary.open())
        #expect(try store.backfilled(bundleId: "a", among: ["2"]) == ["2"])
        let row = try temporary.open().read { db in
            try db.query("SELECT outcome, environment, covered_by FROM appstore_backfill WHERE transaction_id = '2'") {
                [$0.text(0), $0.text(1), $0.optionalText(2) ?? "-"]
            }
        }
        #expect(row == [["fetched", "Sandbox", "-"]])
    }

    @Test("recovered windows: the one that ends last, per app and environment")
    func windows() throws {
        let temporary = TemporaryDatabase()
        defer { temporary.cleanup() }
        let store = SQLiteAppStoreSyncStore(database: try temporary.open())
        #expect(try store.lastRecoveredWindow(bundleId: "a", environment: "Production") == nil)
        for (start, end) in [(0, 100), (300, 400), (100, 200)] as [(Int64, Int64)] {
            try store.recordRecoveredWindow(RecoveredWindow(bundleId: "a", environment: "Production", start: start, end: end,
                                                            found: Int(end), stored: 1, completedAt: 500))
        }
        try store.recordRecoveredWindow(RecoveredWindow(bundleId: "a", environment: "Sandbox", start: 0, end: 900, found: 0, stored: 0,
                                                        completedAt: 900))
        let last = try #require(try store.lastRecoveredWindow(bundleId: "a", environment: "Production"))
        #expect(last.start == 300 && last.end == 400 && last.found == 400 && last.stored == 1 && last.completedAt == 500)
        #expect(try store.lastRecoveredWindow(bundleId: "b", environment: "Production") == nil)
    }
}
