import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: a claim leased and a run of tries recorded in one statement (per 64 rows)")
    struct WebhookDeliveryBatchContract {
        typealias Hooks = WebhookContract

        @Test("a claim of 130 leases every row it returns (statements of 64, 64 and 2): nothing of it is claimed again while leased",
              arguments: Engine.allCases)
        func leaseInChunks(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.webhooks.put(Hooks().webhook("w"), change: Hooks().change("w"))
            _ = try stores.signatures.append(all: (0..<140).map { Hooks().record(user: "user-\($0)") })
            let now = Date()
            let claimed = try stores.webhooks.claim(limit: 130, now: now, lease: .seconds(30))
            #expect(claimed.count == 130 && Set(claimed.map(\.id)).count == 130 && Set(claimed.map(\.claim)).count == 1)
            let rest = try stores.webhooks.claim(limit: 200, now: now, lease: .seconds(30))
            #expect(rest.count == 10 && Set(rest.map(\.id)).isDisjoint(with: claimed.map(\.id)), "the 130 stay leased")
            #expect(try stores.webhooks.claim(limit: 200, now: now, lease: .seconds(30)).isEmpty)
            // Every leased row can be recorded under its claim.
            let recorded = try stores.webhooks.record((claimed + rest).map {
                DeliveryAttempt(delivery: $0, at: now, outcome: .delivered, status: 204, answer: "", error: nil)
            })
            #expect(recorded.count == 140 && recorded.allSatisfy { $0 })
        }

        @Test("a run of 70 tries recorded together: each row gets its own outcome, status, answer and times; a try whose claim lapsed is not recorded, the rest are",
              arguments: Engine.allCases)
        func recordRun(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.webhooks
            try store.put(Hooks().webhook("w"), change: Hooks().change("w"))
            _ = try stores.signatures.append(all: (0..<70).map { Hooks().record(user: "user-\($0)") })
            let t0 = Date(milliseconds: Date().milliseconds)
            let claimed = try store.claim(limit: 70, now: t0, lease: .seconds(1))
            #expect(claimed.count == 70)
            // The claim's lease (70 × 1 s) lapses and its first row is claimed again: the first claim's try of it must not count.
            let reclaimed = try #require(try store.claim(limit: 1, now: t0.addingTimeInterval(100), lease: .seconds(30)).first)
            #expect(reclaimed.id == claimed[0].id)
            var tries: [DeliveryAttempt] = []
            for (index, delivery) in claimed.enumerated() {
                let at = t0.addingTimeInterval(Double(index))
                switch index % 3 {
                case 0: tries.append(DeliveryAttempt(delivery: delivery, at: at, outcome: .delivered, status: 200 + index, answer: "ok \(index)", error: nil))
                case 1: tries.append(DeliveryAttempt(delivery: delivery, at: at, outcome: .retry(at: at.addingTimeInterval(Double(10 + index))),
                                                     status: nil, answer: nil, error: "timeout \(index)"))
                default: tries.append(DeliveryAttempt(delivery: delivery, at: at, outcome: .dead, status: 500, answer: "no \(index)", error: nil))
                }
            }
            let recorded = try store.record(tries)
            #expect(recorded == claimed.indices.map { $0 != 0 }, "every try but the one whose row was claimed again")
            let rows = Dictionary(uniqueKeysWithValues: try store.deliveries(webhookId: "w", state: nil, beforeId: nil, limit: 100).map { ($0.id, $0) })
            for (index, attempt) in tries.enumerated() {
                let row = try #require(rows[attempt.delivery.id])
                if index == 0 {
                    #expect(row.state == .pending && row.attempts == 0 && row.lastAttemptAt == nil, "the lapsed claim's try left no trace")
                    continue
                }
                #expect(row.attempts == 1 && row.lastAttemptAt == attempt.at, "row \(index)")
                #expect(row.lastStatus == attempt.status && row.lastAnswer == attempt.answer && row.lastError == attempt.error, "row \(index)")
                switch attempt.outcome {
                case .delivered: #expect(row.state == .delivered && row.deliveredAt == attempt.at, "row \(index)")
                case .retry(let next): #expect(row.state == .pending && row.nextAttemptAt == next && row.deliveredAt == nil, "row \(index)")
                case .dead: #expect(row.state == .dead && row.deliveredAt == nil, "row \(index)")
                }
            }
            // The retried rows wait for their time, no longer leased; the re-claimed row records under its new claim.
            #expect(try store.record([DeliveryAttempt(delivery: reclaimed, at: t0, outcome: .delivered, status: 204, answer: nil, error: nil)]) == [true])
            let retried = try store.claim(limit: 100, now: t0.addingTimeInterval(200), lease: .seconds(30))
            #expect(Set(retried.map(\.id)) == Set(tries.filter { if case .retry = $0.outcome { true } else { false } }.map(\.delivery.id)))
        }

        @Test("two PostgreSQL instances claiming 50 at a time and recording runs of tries never claim one delivery twice")
        func twoInstancesLargeClaims() throws {
            let database = try EngineDatabase(.postgreSQL)
            defer { database.cleanup() }
            let first = try database.open()
            defer { first.close() }
            let second = try database.open()
            defer { second.close() }
            try first.webhooks.put(Hooks().webhook("w"), change: Hooks().change("w"))
            _ = try first.signatures.append(all: (0..<600).map { Hooks().record(user: "user-\($0)") })
            let claims = Mutex<[Int64]>([])
            let recorded = Mutex<Int>(0)
            let group = DispatchGroup()
            for stores in [first, second, first, second] {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    while let batch = try? stores.webhooks.claim(limit: 50, now: Date(), lease: .seconds(60)), !batch.isEmpty {
                        claims.withLock { $0 += batch.map(\.id) }
                        let done = (try? stores.webhooks.record(batch.map {
                            DeliveryAttempt(delivery: $0, at: Date(), outcome: .delivered, status: 200, answer: nil, error: nil)
                        })) ?? []
                        recorded.withLock { $0 += done.filter { $0 }.count }
                    }
                }
            }
            group.wait()
            let all = claims.withLock { $0 }
            #expect(all.count == 600 && Set(all).count == 600, "each delivery claimed once")
            #expect(recorded.withLock { $0 } == 600)
            #expect(try first.webhooks.deliveries(webhookId: "w", state: .delivered, beforeId: nil, limit: 1000).count == 600)
        }
    }
}
