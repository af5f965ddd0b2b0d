import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

extension StorageContract {
    /// Each user's order per webhook, kept by the claim with an index of the held rows only
    /// (claimed or tried): a later event never goes while an earlier one of its user is
    /// undelivered, whichever instance or clock wrote it.
    @Suite("Storage contract: the outbox keeps each user's order")
    struct WebhookOrderContract {
        typealias Hooks = WebhookContract

        func refused(_ user: String) -> WebhookEvent {
            WebhookEvent(type: .offerRefused, occurredAt: Hooks.t0, bundleId: "com.example.app", environment: nil, orderingKey: user,
                         data: ["userId": .string(user)])
        }

        @Test("an event written with a later clock (another instance's) still goes before its user's next event, and holds it back",
              arguments: Engine.allCases)
        func untouchedEventIsDue(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.webhooks
            try store.put(Hooks().webhook("w", events: [.offerRefused]), change: Hooks().change("w"))
            let now = Date()
            let first = refused("user-a"), second = refused("user-a"), other = refused("user-b")
            _ = try store.enqueue([first], at: now.addingTimeInterval(60))  // written by a clock a minute ahead
            _ = try store.enqueue([second, other], at: now)
            let claimed = try store.claim(limit: 10, now: now.addingTimeInterval(1), lease: .seconds(30))
            #expect(claimed.map(\.eventId) == [first.id, other.id], "user-a's first goes first; its second waits")
            for delivery in claimed {
                try store.record(DeliveryAttempt(delivery: delivery, at: now, outcome: .delivered, status: 204, answer: nil, error: nil))
            }
            #expect(try store.claim(limit: 10, now: now.addingTimeInterval(2), lease: .seconds(30)).map(\.eventId) == [second.id])
        }

        static func userAndSequence(_ delivery: ClaimedDelivery) -> (String, Int) {
            let document = try? JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [String: Any]
            let data = document?["data"] as? [String: Any]
            return (data?["userId"] as? String ?? "", data?["sequence"] as? Int ?? 0)
        }

        @Test("two PostgreSQL instances claiming at once never have two events of one user out at the same time, nor out of order")
        func twoInstancesKeepOrder() throws {
            let database = try EngineDatabase(.postgreSQL)
            defer { database.cleanup() }
            let first = try database.open()
            defer { first.close() }
            let second = try database.open()
            defer { second.close() }
            try first.webhooks.put(Hooks().webhook("w"), change: Hooks().change("w"))
            // Few users, many events each: claims of both instances keep reaching for the same users.
            let users = (0..<8).map { "user-\($0)" }
            for _ in 0..<12 { _ = try first.signatures.append(all: users.map { Hooks().record(user: $0) }) }

            struct Ledger {
                var out: [String: Int] = [:]
                var last: [String: Int] = [:]
                var delivered = 0
                var faults: [String] = []
            }
            let ledger = Mutex(Ledger())
            let group = DispatchGroup()
            for stores in [first, second, first, second] {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var idle = 0
                    while idle < 20 {
                        guard let batch = try? stores.webhooks.claim(limit: 4, now: Date(), lease: .seconds(60)), !batch.isEmpty else {
                            idle += 1
                            usleep(2_000)
                            continue
                        }
                        idle = 0
                        ledger.withLock { ledger in
                            for delivery in batch {
                                let (user, sequence) = Self.userAndSequence(delivery)
                                if let out = ledger.out[user] { ledger.faults.append("\(user): \(sequence) claimed while \(out) was out") }
                                if let last = ledger.last[user], last >= sequence { ledger.faults.append("\(user): \(sequence) after \(last)") }
                                ledger.out[user] = sequence
                                ledger.last[user] = sequence
                            }
                        }
                        usleep(500)
                        // Back in before the record commits: the next of the user can be claimed only after it.
                        ledger.withLock { ledger in
                            for delivery in batch { ledger.out[Self.userAndSequence(delivery).0] = nil }
                            ledger.delivered += batch.count
                        }
                        _ = try? stores.webhooks.record(batch.map {
                            DeliveryAttempt(delivery: $0, at: Date(), outcome: .delivered, status: 200, answer: nil, error: nil)
                        })
                    }
                }
            }
            group.wait()
            let result = ledger.withLock { $0 }
            #expect(result.faults.isEmpty, "\(result.faults.prefix(5))")
            #expect(result.delivered == users.count * 12)
        }
    }
}
