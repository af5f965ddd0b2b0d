import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerStore
import Synchronization
import Testing

/// The webhook store, counting the commits that record tries and the gauge's scans, and noting
/// the nice value of each thread that claims or records (``currentThreadNiceness()``).
final class RecordCountingWebhookStore: WebhookStore {
    let base: any WebhookStore
    let recorded = Mutex<[Int]>([])
    let gaugeScans = Mutex(0)
    let databaseThreadNiceness = Mutex<Set<Int32>>([])

    init(_ base: any WebhookStore) { self.base = base }

    func record(_ attempts: [DeliveryAttempt]) throws -> [Bool] {
        databaseThreadNiceness.withLock { _ = $0.insert(currentThreadNiceness()) }
        if !attempts.isEmpty { recorded.withLock { $0.append(attempts.count) } }
        return try base.record(attempts)
    }

    func webhook(id: String) throws -> StoredWebhook? { try base.webhook(id: id) }
    func webhooks() throws -> [StoredWebhook] { try base.webhooks() }
    func put(_ webhook: StoredWebhook, change: WebhookChange) throws { try base.put(webhook, change: change) }
    func delete(id: String, change: WebhookChange) throws -> Bool { try base.delete(id: id, change: change) }
    func sealSecrets() throws -> Int { try base.sealSecrets() }
    func changes(webhookId: String, afterId: Int64, limit: Int) throws -> [WebhookChange] {
        try base.changes(webhookId: webhookId, afterId: afterId, limit: limit)
    }
    func enqueue(_ events: [WebhookEvent], at now: Date) throws -> Int { try base.enqueue(events, at: now) }
    func isSubscribed(_ type: WebhookEventType) -> Bool { base.isSubscribed(type) }
    func isSubscribed(_ type: WebhookEventType, bundleId: String?) -> Bool { base.isSubscribed(type, bundleId: bundleId) }
    func reloadSubscriptions() throws { try base.reloadSubscriptions() }
    func claim(limit: Int, now: Date, lease: Duration, webhookId: String?) throws -> [ClaimedDelivery] {
        databaseThreadNiceness.withLock { _ = $0.insert(currentThreadNiceness()) }
        return try base.claim(limit: limit, now: now, lease: lease, webhookId: webhookId)
    }
    func deliveries(webhookId: String, state: WebhookDelivery.State?, beforeId: Int64?, limit: Int) throws -> [WebhookDelivery] {
        try base.deliveries(webhookId: webhookId, state: state, beforeId: beforeId, limit: limit)
    }
    func retry(webhookId: String, eventId: String, at now: Date) throws -> Bool { try base.retry(webhookId: webhookId, eventId: eventId, at: now) }
    func replay(webhookId: String, from: Date, to: Date, at now: Date) throws -> Int {
        try base.replay(webhookId: webhookId, from: from, to: to, at: now)
    }
    func oldestUndelivered() throws -> Date? {
        gaugeScans.withLock { $0 += 1 }
        return try base.oldestUndelivered()
    }
    func pruneDelivered(before: Date, batchSize: Int) throws -> Int { try base.pruneDelivered(before: before, batchSize: batchSize) }
}

@Suite("Webhooks: the tries of a claim recorded in one commit")
struct WebhookRecordBatchTests {
    let hooks = WebhookTests()

    @Test("a claim's deliveries (a failed one among them) are recorded together, once, each with its own outcome")
    func oneCommitPerClaim() throws {
        let env = try hooks.environment()
        let receiver = try WebhookReceiver { _, count in count == 2 ? MockHTTPResponse(status: 503) : MockHTTPResponse(status: 204) }
        _ = try hooks.create(env, url: receiver.url)
        for user in ["user-1", "user-2", "user-3"] { hooks.sign(env, user: user) }
        let counting = RecordCountingWebhookStore(env.webhookStore)
        let clock = MovableClock()
        let worker = WebhookDeliveryWorker(store: counting, policy: WebhookURLPolicy(allowPrivate: true, resolver: SystemHostResolver()),
                                           schedule: WebhookTests.fast, clock: clock.wallClock, metrics: env.metrics, logger: .silent)
        #expect(worker.runRound() == 3)
        #expect(receiver.requests.count == 3)
        #expect(counting.recorded.withLock { $0 } == [3], "one commit for the claim's three tries")
        let items = try env.webhookStore.deliveries(webhookId: "crm", state: nil, beforeId: nil, limit: 10)
        #expect(items.map(\.state).sorted { $0.rawValue < $1.rawValue } == [.delivered, .delivered, .pending])
        #expect(items.allSatisfy { $0.attempts == 1 })
        clock.advance(60)
        #expect(worker.runRound() == 1, "the failed one is tried again")
        #expect(try env.webhookStore.deliveries(webhookId: "crm", state: .delivered, beforeId: nil, limit: 10).count == 3)
    }
}
