import Foundation
import OfferSignerCore

/// Webhooks, their audited changes, and the outbox of events waiting for (or done with)
/// delivery. Events are written into the outbox by the stores whose transactions cause them
/// (the signature log's batch, the notification's commit, …) and only for the enabled
/// webhooks that subscribe to them; the delivery worker claims, delivers and records them here.
public protocol WebhookStore: Sendable {
    /// The webhook with this ID.
    func webhook(id: String) throws -> StoredWebhook?
    /// Every webhook, by ID.
    func webhooks() throws -> [StoredWebhook]
    /// Creates or replaces `webhook`, recording `change` in the same transaction.
    func put(_ webhook: StoredWebhook, change: WebhookChange) throws
    /// Deletes the webhook and its deliveries, recording `change`; false when there was none.
    func delete(id: String, change: WebhookChange) throws -> Bool
    /// Makes every stored secret readable with the store's key before the service starts: with a
    /// key, seals each secret still in plain text (a row changed only if still as read, so
    /// instances starting together seal it once); how many webhooks were sealed. Throws
    /// ``WebhookSecretError`` when a sealed secret does not open: no key configured, or another.
    func sealSecrets() throws -> Int
    /// The webhook's changes, oldest first, after the one with ID `afterId`.
    func changes(webhookId: String, afterId: Int64, limit: Int) throws -> [WebhookChange]

    /// Writes `events` into the outbox for every enabled webhook that subscribes to them, in
    /// a transaction of their own (for events whose cause is no other write: a refusal, a
    /// failed integrity check); how many deliveries were queued.
    @discardableResult
    func enqueue(_ events: [WebhookEvent], at now: Date) throws -> Int
    /// Whether some enabled webhook subscribes to `type` (of any app): events of no subscribed
    /// type need not even be made.
    func isSubscribed(_ type: WebhookEventType) -> Bool
    /// Whether some enabled webhook takes events of `type` of the app `bundleId` (a lock-free
    /// read: what a refusal asks before it makes its event).
    func isSubscribed(_ type: WebhookEventType, bundleId: String?) -> Bool
    /// Reads the enabled webhooks' subscriptions again (those changed by other instances).
    func reloadSubscriptions() throws

    /// Reserves up to `limit` deliveries that are due at `now` for `lease`, oldest first, at
    /// most one per user and webhook, none behind an undelivered earlier event of the same user
    /// and webhook; a delivery another instance holds is skipped (PostgreSQL:
    /// `FOR UPDATE SKIP LOCKED`), so no two instances deliver one event at once. With
    /// `webhookId`, only that webhook's (each webhook has its own lane of deliveries, so a slow
    /// receiver holds up no other).
    func claim(limit: Int, now: Date, lease: Duration, webhookId: String?) throws -> [ClaimedDelivery]
    /// Records tries of claimed deliveries in one transaction (one durable commit for a run of
    /// deliveries); for each, false when its claim had lapsed and another took it.
    @discardableResult
    func record(_ attempts: [DeliveryAttempt]) throws -> [Bool]
    /// The webhook's deliveries, newest first, before the one with ID `beforeId` (nil: from the newest).
    func deliveries(webhookId: String, state: WebhookDelivery.State?, beforeId: Int64?, limit: Int) throws -> [WebhookDelivery]
    /// Queues the event's delivery to the webhook again now (whatever its state), with a new
    /// 72-hour window; a claim being delivered loses its hold (its try is not recorded, the
    /// event goes again); false when the outbox holds no such delivery.
    func retry(webhookId: String, eventId: String, at now: Date) throws -> Bool
    /// Queues again every delivery to the webhook of events that occurred in `from..<to`; how many.
    func replay(webhookId: String, from: Date, to: Date, at now: Date) throws -> Int
    /// When the oldest undelivered (pending) delivery was queued; nil when none is.
    func oldestUndelivered() throws -> Date?
    /// Deletes up to `batchSize` deliveries delivered before `before`; how many.
    func pruneDelivered(before: Date, batchSize: Int) throws -> Int
}

extension WebhookStore {
    /// Records a try of a claimed delivery; false when the claim had lapsed and another took it.
    @discardableResult
    public func record(_ attempt: DeliveryAttempt) throws -> Bool {
        try record([attempt]).first ?? false
    }

    /// Reserves up to `limit` due deliveries of any webhook (see ``claim(limit:now:lease:webhookId:)``).
    public func claim(limit: Int, now: Date, lease: Duration) throws -> [ClaimedDelivery] {
        try claim(limit: limit, now: now, lease: lease, webhookId: nil)
    }
}

/// A webhook: where events of which types (of which apps) are posted, and its secrets.
public struct StoredWebhook: Sendable, Hashable {
    public var id: String
    public var url: String
    public var events: [WebhookEventType]
    /// Only events of these apps; nil: of every app (and those of none).
    public var bundleIds: [String]?
    public var enabled: Bool
    /// The signing secret (never shown after it is made, but for its last four characters; sealed
    /// in the database when a key is configured, see ``WebhookSecretSealer``).
    public var secret: String
    /// The secret before the last rotation, also signed with until ``previousSecretExpiresAt``.
    public var previousSecret: String?
    public var previousSecretExpiresAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, url: String, events: [WebhookEventType], bundleIds: [String]?, enabled: Bool, secret: String,
                previousSecret: String? = nil, previousSecretExpiresAt: Date? = nil, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.url = url
        self.events = events
        self.bundleIds = bundleIds
        self.enabled = enabled
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The secrets a delivery at `now` is signed with: the current one, then the previous one
    /// while it is still valid.
    public func secrets(at now: Date) -> [String] {
        guard let previousSecret, let until = previousSecretExpiresAt, now < until else { return [secret] }
        return [secret, previousSecret]
    }

    /// Whether it takes events of `type` of the app `bundleId`.
    public func subscribes(to type: WebhookEventType, bundleId: String?) -> Bool {
        guard enabled, events.contains(type) else { return false }
        guard let bundleIds else { return true }
        return bundleId.map(bundleIds.contains) ?? false
    }
}

/// One audited change of a webhook.
public struct WebhookChange: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable {
        case created, updated, deleted, secretRotated = "secret-rotated", retried, replayed
    }

    /// 0 until recorded.
    public var id: Int64
    public var webhookId: String
    public var action: Action
    public var actor: String
    public var at: Date
    /// The webhook after the change as JSON without its secrets (nil for a deletion).
    public var document: String?

    public init(id: Int64 = 0, webhookId: String, action: Action, actor: String, at: Date, document: String?) {
        self.id = id
        self.webhookId = webhookId
        self.action = action
        self.actor = actor
        self.at = at
        self.document = document
    }
}

/// A delivery reserved for this instance by ``WebhookStore/claim(limit:now:lease:webhookId:)``.
public struct ClaimedDelivery: Sendable, Hashable {
    public let id: Int64
    public let webhookId: String
    public let eventId: String
    public let body: String
    /// Tries made before this one.
    public let attempts: Int
    /// When it was queued (or queued again), the start of its window of tries.
    public let queuedAt: Date
    /// The claim's token: only its holder records the try.
    public let claim: String
}

/// The end of one try of a claimed delivery.
public struct DeliveryAttempt: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        case delivered
        /// Failed; tried again at the time given.
        case retry(at: Date)
        /// Failed and out of time: dead-lettered.
        case dead
    }

    public var delivery: ClaimedDelivery
    public var at: Date
    public var outcome: Outcome
    /// The receiver's status code, nil when none answered.
    public var status: Int?
    /// The first 200 bytes of the receiver's answer.
    public var answer: String?
    /// Why no answer came (refused address, timeout, connection refused).
    public var error: String?

    public init(delivery: ClaimedDelivery, at: Date, outcome: Outcome, status: Int?, answer: String?, error: String?) {
        self.delivery = delivery
        self.at = at
        self.outcome = outcome
        self.status = status
        self.answer = answer
        self.error = error
    }
}

/// A delivery of an event to a webhook, as the deliveries list shows it.
public struct WebhookDelivery: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        case pending, delivered, dead
    }

    public let id: Int64
    public let webhookId: String
    public let eventId: String
    public let eventType: String
    public let occurredAt: Date
    public let state: State
    public let attempts: Int
    public let queuedAt: Date
    public let nextAttemptAt: Date?
    public let lastAttemptAt: Date?
    public let lastStatus: Int?
    public let lastAnswer: String?
    public let lastError: String?
    public let deliveredAt: Date?
}
