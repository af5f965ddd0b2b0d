import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: offer store")
    struct OfferStoreContract {
        let rule = OfferRule(offerId: "winback", bundleId: "com.example.app", productIds: ["pro"],
                             startsAt: Date(timeIntervalSince1970: 1_800_000_000),
                             eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 30, storefronts: ["USA"]),
                             limits: OfferLimits(maxSignaturesPerUserPerDay: 2))

        @Test("put, update, disable: versions, timestamps and a change record for each", arguments: Engine.allCases)
        func lifecycle(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.offers
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            let created = try store.put(rule, by: "marketing", at: t0)
            #expect(created.version == 1 && created.createdAt == t0)
            let same = try store.put(rule, by: "marketing", at: t0.addingTimeInterval(5))
            #expect(same.version == 1, "an identical rule is not a change")
            var changed = rule
            changed.priority = 7
            let updated = try store.put(changed, by: "ops", at: t0.addingTimeInterval(10))
            #expect(updated.version == 2 && updated.createdAt == t0 && updated.updatedAt == t0.addingTimeInterval(10))
            let disabled = try #require(try store.disable(bundleId: "com.example.app", offerId: "winback", by: "marketing", at: t0.addingTimeInterval(20)))
            #expect(!disabled.rule.enabled && disabled.version == 3)
            #expect(try store.disable(bundleId: "com.example.app", offerId: "missing", by: "marketing", at: t0) == nil)

            let changes = try store.changes(bundleId: "com.example.app", offerId: "winback", afterId: 0, limit: 10)
            #expect(changes.map(\.action) == ["create", "update", "disable"])
            #expect(changes.map(\.apiKeyName) == ["marketing", "ops", "marketing"])
            #expect(changes[0].before == nil && changes[0].after == rule)
            #expect(changes[1].before == rule && changes[1].after == changed)
            #expect(changes[2].after?.enabled == false)
        }

        @Test("two apps' offers of the same ID live side by side, each with its versions and changes", arguments: Engine.allCases)
        func sameOfferIdInTwoApps(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.offers
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            var other = rule
            other.bundleId = "com.example.other"
            other.productIds = ["plus"]
            #expect(try store.put(rule, by: "m", at: t0).version == 1)
            #expect(try store.put(other, by: "m", at: t0).version == 1, "created, not moved")
            var changed = rule
            changed.priority = 4
            #expect(try store.put(changed, by: "m", at: t0).version == 2)
            #expect(try store.offer(bundleId: "com.example.app", offerId: "winback")?.rule == changed)
            #expect(try store.offer(bundleId: "com.example.other", offerId: "winback")?.rule == other)
            #expect(try store.offers().map(\.rule.bundleId) == ["com.example.app", "com.example.other"])
            #expect(try store.disable(bundleId: "com.example.other", offerId: "winback", by: "m", at: t0)?.version == 2)
            #expect(try store.offer(bundleId: "com.example.app", offerId: "winback")?.rule.enabled == true)
            #expect(try store.changes(bundleId: "com.example.app", offerId: "winback", afterId: 0, limit: 10).map(\.version) == [1, 2])
            #expect(try store.changes(bundleId: "com.example.other", offerId: nil, afterId: 0, limit: 10).map(\.action) == ["create", "disable"])
            #expect(try store.changes(bundleId: nil, offerId: "winback", afterId: 0, limit: 10).count == 4)
        }

        @Test("rules survive a restart exactly", arguments: Engine.allCases)
        func restart(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            do {
                let stores = try database.open()
                _ = try stores.offers.put(rule, by: "m", at: Date(timeIntervalSince1970: 1_800_000_000))
                stores.close()
            }
            let stores = try database.open()
            defer { stores.close() }
            let reopened = stores.offers
            #expect(try reopened.offer(bundleId: "com.example.app", offerId: "winback")?.rule == rule)
            #expect(try reopened.offers().count == 1)
        }

        @Test("a rule changed through one opening of the database is in force in another within 2 s", arguments: Engine.allCases)
        func changeSeenElsewhere(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let first = try database.open()
            defer { first.close() }
            let second = try database.open()
            defer { second.close() }
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            _ = try first.offers.put(rule, by: "m", at: t0)
            var changed = rule
            changed.priority = 9
            _ = try first.offers.put(changed, by: "m", at: t0)
            // Seen by the other instance (NOTIFY, else its 1 s poll): waited for, with a deadline
            // that only catches a change never seen.
            let start = ContinuousClock.now
            while try second.offers.offer(bundleId: "com.example.app", offerId: "winback")?.rule != changed,
                  ContinuousClock.now - start < .seconds(60) {
                Thread.sleep(forTimeInterval: 0.02)
            }
            #expect(try second.offers.offer(bundleId: "com.example.app", offerId: "winback")?.rule == changed,
                    "not seen after \(ContinuousClock.now - start)")
            _ = try second.offers.disable(bundleId: "com.example.app", offerId: "winback", by: "m", at: t0)
            #expect(try second.offers.changes(bundleId: nil, offerId: nil, afterId: 0, limit: 10).map(\.version) == [1, 2, 3])
        }
    }
}
