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
///
/// Each webhook has a lane of its own (a thread, `webhook-lane`, started for each webhook the
/// worker's own thread finds), so a receiver that answers slowly or not at all (up to the
/// timeout, each try) holds up only its own deliveries, never another webhook's.
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
    /// Each webhook's lane, by webhook ID, while the worker runs.
    private let lanes = PlainMutex<[String: PeriodicTask]>([:])
    private let lastPrune = PlainMutex<Date?>(nil)
    /// When the oldest-undelivered gauge was last updated.
    private let lastGauge = PlainMutex<ContinuousClock.Instant?>(nil)
    private let pollInterval: Duration
    /// How often the worker's thread updates the oldest-undelivered gauge (a scan of the
    /// pending rows): every 5 s by default, for a metric scraped every 15 s or more.
    private let gaugeInterval: Duration

    /// How long a receiver has to answer (10 s).
    let timeout: Duration
    /// How many deliveries one claim takes. A claim and its record are a durable commit each
    /// (the write lock and an fsync, beside the signature log's batches): 50 a claim makes two
    /// per 50 deliveries, posted over one kept connection in well under the record's second.
    static let batchSize = 50
    /// How long tries may wait to be recorded together.
    static let recordWithin: Duration = .seconds(1)

    public init(store: any WebhookStore, policy: WebhookURLPolicy, sender: any WebhookSending = WebhookHTTPClient(),
                schedule: WebhookRetrySchedule = .standard, timeout: Duration = .seconds(10), retentionDays: Int = 30,
                pollInterval: Duration = .milliseconds(500), gaugeInterval: Duration = .seconds(5), clock: WallClock = .system,
                metrics: Metrics, logger: Logger) {
        self.timeout = timeout
        self.gaugeInterval = gaugeInterval
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

    /// Starts the worker's thread, which starts (and stops) the webhooks' lanes.
    public func start() {
        let task = PeriodicTask(name: "webhook-worker", interval: pollInterval) { [self] task in
            guard let webhookIds = housekeeping() else { return }
            if !task.isStopping { keepLanes(for: webhookIds) }
        }
        self.task.withLock { $0 = task }
        task.start()
    }

    /// Stops it and its lanes once the deliveries being made are recorded.
    public func stop() {
        task.withLock { $0 }?.stop()
        let running = lanes.withLock { lanes in
            defer { lanes = [:] }
            return Array(lanes.values)
        }
        for lane in running { lane.stop() }
    }

    /// One round, on the caller's thread: reload subscriptions, deliver everything due of every
    /// webhook (the webhooks side by side, each on a thread of its own), update the gauge, prune.
    /// Returns how many deliveries were tried.
    @discardableResult
    public func runRound(stopping: @escaping @Sendable () -> Bool = { false }) -> Int {
        guard let webhookIds = housekeeping(updatingGauge: false) else { return 0 }
        let tried = PlainMutex(0)
        let done = DispatchGroup()
        for webhookId in webhookIds {
            done.enter()
            NamedThread.start("webhook-lane") { [self] in
                let count = deliverDue(webhookId: webhookId, stopping: stopping)
                tried.withLock { $0 += count }
                done.leave()
            }
        }
        done.wait()
        _ = housekeeping(updatingGauge: true)
        return tried.withLock { $0 }
    }

    /// Reloads the subscriptions, updates the oldest-undelivered gauge and prunes (`updatingGauge`:
    /// true, now; false, not; nil, when ``gaugeInterval`` has passed since the last time); the
    /// webhooks' IDs, or nil when the store could not be read.
    private func housekeeping(updatingGauge: Bool? = nil) -> [String]? {
        do {
            try store.reloadSubscriptions()
            let webhookIds = try store.webhooks().map(\.id)
            if updatingGauge ?? gaugeDue() {
                let oldest = try store.oldestUndelivered()
                metrics.setWebhookOldestUndelivered(seconds: oldest.map { max(0, clock.now.timeIntervalSince($0)) } ?? 0)
                try prune()
            }
            return webhookIds
        } catch {
            logger.log(.error, "webhook deliveries paused for this round", ["reason": .string(String(describing: error))])
            return nil
        }
    }

    /// Starts a lane for each webhook that has none, stops those of webhooks deleted.
    private func keepLanes(for webhookIds: [String]) {
        let wanted = Set(webhookIds)
        let (started, gone) = lanes.withLock { lanes -> ([PeriodicTask], [PeriodicTask]) in
            var started: [PeriodicTask] = []
            for webhookId in webhookIds where lanes[webhookId] == nil {
                let lane = PeriodicTask(name: "webhook-lane", interval: pollInterval) { [self] lane in
                    deliverDue(webhookId: webhookId, stopping: { lane.isStopping })
                }
                lanes[webhookId] = lane
                started.append(lane)
            }
            let gone = lanes.keys.filter { !wanted.contains($0) }.compactMap { lanes.removeValue(forKey: $0) }
            return (started, gone)
        }
        for lane in started { lane.start() }
        // A deleted webhook's lane may be waiting on its receiver: it ends on its own thread, holding up no other.
        for lane in gone { NamedThread.start("webhook-drop") { lane.stop() } }
    }

    /// Delivers every due delivery of one webhook, a claim at a time; how many were tried.
    /// The claim's posts are made on a posting thread at a lower priority (``WebhookPosting``);
    /// this thread, which alone takes the database's write connection, claims and records.
    /// The tries of a claim are recorded together, in one commit (not one per delivery, which
    /// would cost a durable commit each beside the signature log's): when the claim is done, or
    /// once ``recordWithin`` has passed since the first unrecorded try (a slow receiver). A
    /// crash before the record sends those deliveries again: at least once, as before.
    @discardableResult
    func deliverDue(webhookId: String, stopping: @escaping @Sendable () -> Bool) -> Int {
        var tried = 0
        do {
            while !stopping() {
                let claimed = try store.claim(limit: Self.batchSize, now: clock.now, lease: schedule.lease, webhookId: webhookId)
                if claimed.isEmpty { break }
                guard let webhook = try store.webhook(id: webhookId) else { break }  // deleted meanwhile: its rows went with it
                let posting = WebhookPosting.start { [self] hand in
                    var unrecorded: [DeliveryAttempt] = []
                    unrecorded.reserveCapacity(claimed.count)
                    var since = ContinuousClock.now
                    var check = WebhookTargetCheck()
                    var keys = WebhookSigningKeys()
                    for delivery in claimed where !stopping() {
                        if unrecorded.isEmpty { since = ContinuousClock.now }
                        unrecorded.append(attempt(delivery, to: webhook, check: &check, keys: &keys))
                        if ContinuousClock.now - since >= Self.recordWithin {
                            hand(unrecorded)
                            unrecorded = []
                        }
                    }
                    if !unrecorded.isEmpty { hand(unrecorded) }
                }
                // Every try is waited for, also after a failed record, so no post of this claim is
                // still out when the lane claims again or stops.
                var failure: (any Error)?
                while let tries = posting.next() {
                    tried += tries.count
                    guard failure == nil else { continue }
                    do { try store.record(tries) } catch { failure = error }
                }
                if let failure { throw failure }
            }
        } catch {
            logger.log(.error, "webhook deliveries paused for this round",
                       ["webhookId": .string(webhookId), "reason": .string(String(describing: error))])
        }
        return tried
    }

    /// Posts one claimed delivery; what came of it, to record. `check`: the lane's last check of
    /// the webhook's URL, used again within ``WebhookTargetCheck/recheckAfter``; `keys`: its
    /// secrets keyed for HMAC, used again while they are the secrets in force.
    func attempt(_ delivery: ClaimedDelivery, to webhook: StoredWebhook, check: inout WebhookTargetCheck,
                 keys: inout WebhookSigningKeys) -> DeliveryAttempt {
        let started = clock.now
        var status: Int?, answer: String?, failure: String?
        do {
            let target = try check.target(webhook.url, policy: policy)
            let body = Array(delivery.body.utf8)
            let timestamp = Int64(started.timeIntervalSince1970)
            let post = WebhookPost(
                url: webhook.url,
                headers: [("Content-Type", "application/json"), ("User-Agent", "offer-signer-webhooks"),
                          ("Offer-Signer-Signature", WebhookSignature.header(body: body, timestamp: timestamp, keys: keys.keys(for: webhook.secrets(at: started)))),
                          ("Offer-Signer-Event-Id", delivery.eventId)],
                body: body, timeout: timeout,
                host: target.host, port: target.port, address: target.address)
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
        return DeliveryAttempt(delivery: delivery, at: now, outcome: outcome, status: status, answer: answer, error: failure)
    }

    /// Whether the gauge is due (and if so, marks it updated now).
    private func gaugeDue() -> Bool {
        let now = ContinuousClock.now
        return lastGauge.withLock { last in
            guard last.map({ now - $0 >= gaugeInterval }) ?? true else { return false }
            last = now
            return true
        }
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
