import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: experiment events in the lifecycle's transaction, a claim per webhook")
    struct WebhookEventContract {
        typealias Experiments = ExperimentStoreContract
        typealias Hooks = WebhookContract

        @Test("experiment.started and experiment.stopped are written in the change's transaction, none for a weight change or a failed change",
              arguments: Engine.allCases)
        func experimentEvents(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.webhooks.put(Hooks().webhook("lab", events: [.experimentStarted, .experimentStopped]), change: Hooks().change("lab"))
            _ = try Experiments.set(stores.experiments, .draft)
            _ = try Experiments.set(stores.experiments, .running)
            _ = try Experiments.set(stores.experiments, .running, weights: [1, 3])
            #expect(throws: (any Error).self, "a second running experiment on the placement breaks the key") {
                try Experiments.set(stores.experiments, id: "exp2", .running)
            }
            _ = try stores.experiments.change(bundleId: Experiments.bundle, experimentId: "exp1", by: "m", at: Experiments.t0) { context in
                var experiment = try #require(context.existing?.rule)
                experiment.status = .stopped
                experiment.stoppedAt = Experiments.t0
                experiment.winner = "half"
                return ExperimentChange(experiment: experiment)
            }
            // Queued at the change's time; one experiment's events are claimed in order, one at a time.
            var claimed: [ClaimedDelivery] = []
            let later = Experiments.t0.addingTimeInterval(1)
            while let next = try stores.webhooks.claim(limit: 10, now: later, lease: .seconds(30)).first {
                claimed.append(next)
                try stores.webhooks.record(DeliveryAttempt(delivery: next, at: later, outcome: .delivered, status: 204, answer: nil, error: nil))
            }
            let documents = claimed.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] }
            #expect(documents.map { $0["type"] as? String } == ["experiment.started", "experiment.stopped"])
            let stopped = try #require(documents.last?["data"] as? [String: Any])
            #expect(stopped["experimentId"] as? String == "exp1" && stopped["winner"] as? String == "half")
            #expect(stopped["winnerOfferId"] as? String == "half" && stopped["actor"] as? String == "m")
        }

        @Test("a claim for one webhook takes only its deliveries; the others stay for their own lanes", arguments: Engine.allCases)
        func claimPerWebhook(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            for id in ["a", "b"] { try stores.webhooks.put(Hooks().webhook(id), change: Hooks().change(id)) }
            _ = try stores.signatures.append(Hooks().record(user: "user-1"), quota: nil)
            _ = try stores.signatures.append(Hooks().record(user: "user-2"), quota: nil)
            let now = Date()
            let b = try stores.webhooks.claim(limit: 10, now: now, lease: .seconds(30), webhookId: "b")
            #expect(b.count == 2 && b.allSatisfy { $0.webhookId == "b" })
            let rest = try stores.webhooks.claim(limit: 10, now: now, lease: .seconds(30))
            #expect(rest.count == 2 && rest.allSatisfy { $0.webhookId == "a" })
        }
    
        @Test("retry and replay take a delivery back from a claim in flight: it is claimable at once, and the old claim's try is not recorded",
              arguments: Engine.allCases)
        func retryReleasesClaim(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.webhooks.put(Hooks().webhook("w"), change: Hooks().change("w"))
            _ = try stores.signatures.append(Hooks().record(user: "user-1"), quota: nil)
            let now = Date()
            let inFlight = try #require(try stores.webhooks.claim(limit: 10, now: now, lease: .seconds(300)).first)
            #expect(try stores.webhooks.retry(webhookId: "w", eventId: inFlight.eventId, at: now))
            let again = try #require(try stores.webhooks.claim(limit: 10, now: now, lease: .seconds(300)).first, "retried: claimable now")
            #expect(again.eventId == inFlight.eventId && again.claim != inFlight.claim)
            #expect(try !stores.webhooks.record(DeliveryAttempt(delivery: inFlight, at: now, outcome: .delivered, status: 200, answer: nil, error: nil)))
            #expect(try stores.webhooks.replay(webhookId: "w", from: .distantPast, to: .distantFuture, at: now) == 1)
            #expect(try stores.webhooks.claim(limit: 10, now: now, lease: .seconds(300)).first?.eventId == inFlight.eventId, "replayed: claimable now")
        }
    }
}
