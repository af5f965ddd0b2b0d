import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: offer activity and App Store sync progress")
    struct ActivityAndSyncContract {
        @Test("refusal counts added through two openings of the database add up; signatures are counted per offer and day",
              arguments: Engine.allCases)
        func activity(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let first = try database.open()
            defer { first.close() }
            let second = try database.open()
            defer { second.close() }
            let offer = OfferKey(bundleId: "com.example.app", offerId: "winback")
            DispatchQueue.concurrentPerform(iterations: 10) { index in
                let stores = index % 2 == 0 ? first : second
                try? stores.activity.addRefusals([RefusalCount(day: 20_000, offer: offer, criterion: "", count: 1),
                                                  RefusalCount(day: 20_000, offer: offer, criterion: "storefronts", count: 2)])
            }
            #expect(try first.activity.refusals(bundleId: "com.example.app", offerId: "winback", fromDay: 19_999, toDay: 20_001)
                        .map { "\($0.criterion)=\($0.count)" } == ["=10", "storefronts=20"])
            #expect(try second.activity.refusedRequests(fromDay: 20_000, toDay: 20_000) == [offer: 10])
            for n in 0..<3 {
                _ = try first.signatures.append(SignatureRecord(
                    nonce: "a\(n)", format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "winback", userId: "u",
                    keyId: "K", timestamp: 20_000 * 86_400_000 + Int64(n), signature: "s", apiKeyName: "c", requestId: "r", recordedAt: 1), quota: nil)
            }
            #expect(try second.activity.signaturesPerDay(bundleId: "com.example.app", offerId: "winback",
                                                          from: 0, to: 30_000 * 86_400_000) == [20_000: 3])
            #expect(try second.activity.signatures(from: 0, to: 30_000 * 86_400_000) == [offer: 3])
        }

        @Test("backfill progress and recovered windows read back as written", arguments: Engine.allCases)
        func sync(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.sync.recordBackfill([
                BackfillEntry(bundleId: "com.a", transactionId: "t1", outcome: .fetched, environment: "Production", finishedAt: 1),
                BackfillEntry(bundleId: "com.a", transactionId: "t2", outcome: .covered, environment: nil, coveredBy: "t1", finishedAt: 2),
                BackfillEntry(bundleId: "com.b", transactionId: "t3", outcome: .notFound, environment: nil, finishedAt: 3),
            ])
            #expect(try stores.sync.backfilled(bundleId: "com.a", among: ["t1", "t2", "t3", "t4"]) == ["t1", "t2"])
            #expect(try stores.sync.backfilled(bundleId: "com.a", among: []) == [])
            #expect(try stores.sync.lastRecoveredWindow(bundleId: "com.a", environment: "Production") == nil)
            for end: Int64 in [20, 10] {
                try stores.sync.recordRecoveredWindow(RecoveredWindow(bundleId: "com.a", environment: "Production", start: end - 10, end: end,
                                                                      found: Int(end), stored: 1, completedAt: 99))
            }
            #expect(try stores.sync.lastRecoveredWindow(bundleId: "com.a", environment: "Production")?.end == 20)
            #expect(try stores.sync.lastRecoveredWindow(bundleId: "com.a", environment: "Sandbox") == nil)
        }
    }
}
