import Foundation
import OfferSignerCore
import OfferSignerStore
import WebhookTransport

/// Delivers the outbox, one worker per instance: claims due deliveries (never one another
/// instance holds, never one behind an undelivered earlier event of the same user and
/// webhook), posts each signed with the webhook's secrets to the address its URL resolves to
/// now, if that address is still allowed, and records the answer: any 2xx is delivered; else
/// the next try follows the ``WebhookRetrySchedule`` until it gives up (dead letter). Also
/// reloads the subscriptions other instances changed, keeps the metrics, and prunes delivered
/// events after ``retentionDays``.
public final class WebhookDeliveryWorker: Sendable {
    let store: any WebhookStore
    let policy: WebhookURLPolicy
    let sender: any WebhookSending
    let schedule: WebhookRetrySchedule
    let clock: WallClock
    let metrics: Metrics
    let logger: Logger
    let retentionDays: Int
    private let task: PlainMutex<PeriodicTask?> = PlainMutex(nil)
    private let lastPrune = PlainMutex<Date?>(nil)
    private let pollInterval: Duration

    /// How long a receiver has to answer (10 s).
    let timeout: Duration
    /// How many deliveries one claim takes.
    static let batchSize = 10

    public init(store: any WebhookStore, policy: WebhookURLPolicy, sender: any WebhookSending = WebhookHTTPClient(),
                schedule: WebhookRetrySchedule = .standard, timeout: Duration = .seconds(10), retentionDays: Int = 30,
                pollInterval: Duration = .milliseconds(500), clock: WallClock = .system, metrics: Metrics, logger: Logger) {
        self.timeout = timeout
        self.store = store
        self.policy = policy
        self.sender = sender
        self.schedule = schedule
        self.retentionDays = retentionDays
        self.pollInterval = pollInterval
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts the worker's thread.
    public func start() {
        let task = PeriodicTask(name: "webhook-worker", interval: pollInterval) { [self] task in
            runRound(stopping: { task.isStopping })
        }
        self.task.withLock { $0 = task }
        task.start()
    }

    /// Stops it once the delivery being made is recorded.
    public func stop() {
        task.withLock { $0 }?.stop()
    }

    /// One round: reload subscriptions, deliver everything due, update the gauge, prune.
    /// Returns how many deliveries were tried.
    @discardableResult
    public func runRound(stopping: () -> Bool = { false }) -> Int {
        var tried = 0
        do {
            try store.reloadSubscriptions()
            while !stopping() {
                let claimed = try store.claim(limit: Self.batchSize, now: clock.now, lease: schedule.lease)
                if claimed.isEmpty { break }
                var webhooks: [String: StoredWebhook] = [:]
                for delivery in claimed {
                    if webhooks[delivery.webhookId] == nil { webhooks[delivery.webhookId] = try store.webhook(id: delivery.webhookId) }
                    guard let webhook = webhooks[delivery.webhookId] else { continue }  // deleted meanwhile: its rows went with it
                    try deliver(delivery, to: webhook)
                    tried += 1
                }
            }
            let oldest = try store.oldestUndelivered()
            metrics.setWebhookOldestUndelivered(seconds: oldest.map { max(0, clock.now.timeIntervalSince($0)) } ?? 0)
            try prune()
        } catch {
            logger.log(.error, "webhook deliveries paused for this round", ["reason": .string(String(describing: error))])
        }
        return tried
    }

    /// Posts one claimed delivery and records what came of it.
    func deliver(_ delivery: ClaimedDelivery, to webhook: StoredWebhook) throws {
        let started = clock.now
        var status: Int?, answer: String?, failure: String?
        do {
            let target = try policy.target(webhook.url)
            let body = Array(delivery.body.utf8)
            let timestamp = Int64(started.timeIntervalSince1970)
            let post = WebhookPost(
                url: webhook.url,
                headers: [("Content-Type", "application/json"), ("User-Agent", "offer-signer-webhooks"),
                          ("Offer-Signer-Signature", WebhookSignature.header(body: body, timestamp: timestamp, secrets: webhook.secrets(at: started))),
                          ("Offer-Signer-Event-Id", delivery.eventId)],
                body: body, timeout: timeout,
                connectTo: target.hostIsAddress ? nil : (host: target.host, port: target.port, address: target.address))
            let response = try sender.send(post)
            status = response.status
            answer = String(decoding: response.bodyPrefix, as: UTF8.self)
        } catch let refusal as WebhookURLRefusal {
            failure = "not sent: \(refusal.reason)"
        } catch {
            failure = String(describing: error)
        }
        let now = clock.now
        let outcome: DeliveryAttempt.Outcome
        if let status, (200..<300).contains(status) {
            outcome = .delivered
            metrics.recordWebhookDelivery(delivered: true)
        } else {
            metrics.recordWebhookDelivery(delivered: false)
            let next = now.addingTimeInterval(Self.seconds(schedule.delay(afterAttempts: delivery.attempts + 1)))
            if next >= delivery.queuedAt.addingTimeInterval(Self.seconds(schedule.giveUpAfter)) {
                outcome = .dead
                metrics.recordWebhookDeadLetter()
                logger.log(.warning, "webhook delivery dead-lettered", [
                    "webhookId": .string(webhook.id), "eventId": .string(delivery.eventId), "attempts": .int(delivery.attempts + 1),
                ])
            } else {
                outcome = .retry(at: next)
            }
        }
        try store.record(DeliveryAttempt(delivery: delivery, at: now, outcome: outcome, status: status, answer: answer, error: failure))
    }

    /// Deletes delivered events older than the retention, a batch at a time, at most once an hour.
    private func prune() throws {
        let now = clock.now
        let due = lastPrune.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= 3600 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let before = now.addingTimeInterval(-Double(retentionDays) * 86400)
        var pruned = 0
        while true {
            let count = try store.pruneDelivered(before: before, batchSize: 1000)
            pruned += count
            if count < 1000 { break }
        }
        if pruned > 0 { logger.log(.info, "delivered webhook events pruned", ["count": .int(pruned), "keepDays": .int(retentionDays)]) }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// What posts a delivery: libcurl in the service (``WebhookHTTPClient``).
public protocol WebhookSending: Sendable {
    func send(_ post: WebhookPost) throws -> WebhookPostAnswer
}

extension WebhookHTTPClient: WebhookSending {}
