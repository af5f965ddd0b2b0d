import Foundation
import OfferSignerCore
import OfferSignerStore

/// Webhooks managed by administrators: created or replaced, read (the secret only by its last
/// four characters), deleted, their secret rotated (the old one signed with beside the new one
/// for ``previousSecretValidity``), their deliveries listed, retried and replayed. Every change
/// is recorded with who made it (`webhook_changes`).
public struct WebhookAdministration: Sendable {
    let store: any WebhookStore
    let policy: WebhookURLPolicy
    let keyRing: KeyRing
    let clock: WallClock

    /// How long a rotated-out secret stays valid.
    public static let previousSecretValidity: TimeInterval = 24 * 3600

    public init(store: any WebhookStore, policy: WebhookURLPolicy, keyRing: KeyRing, clock: WallClock) {
        self.store = store
        self.policy = policy
        self.keyRing = keyRing
        self.clock = clock
    }

    /// Creates the webhook (with a new secret, returned this once) or replaces its definition
    /// (its secrets kept).
    public func put(id: String, _ definition: WebhookDefinition, by actor: String) throws -> SavedWebhook {
        let events = try validate(id: id, definition)
        do {
            _ = try policy.target(definition.url)
        } catch {
            throw WebhookRefusal.urlRefused(error.reason)
        }
        let now = clock.now
        let existing = try store.webhook(id: id)
        let secret = existing == nil ? Self.newSecret() : nil
        let webhook = StoredWebhook(id: id, url: definition.url, events: events, bundleIds: definition.bundleIds,
                                    enabled: definition.enabled, secret: existing?.secret ?? secret!,
                                    previousSecret: existing?.previousSecret, previousSecretExpiresAt: existing?.previousSecretExpiresAt,
                                    createdAt: existing?.createdAt ?? now, updatedAt: now)
        try store.put(webhook, change: change(webhook, existing == nil ? .created : .updated, actor, now))
        return SavedWebhook(webhook: StoredWebhookView(webhook, now: now), created: existing == nil, secret: secret)
    }

    public func webhook(id: String) throws -> StoredWebhookView {
        StoredWebhookView(try stored(id), now: clock.now)
    }

    public func webhooks() throws -> [StoredWebhookView] {
        let now = clock.now
        return try store.webhooks().map { StoredWebhookView($0, now: now) }
    }

    /// Deletes the webhook and every delivery of it.
    public func delete(id: String, by actor: String) throws {
        let now = clock.now
        guard try store.delete(id: id, change: WebhookChange(webhookId: id, action: .deleted, actor: actor, at: now, document: nil)) else {
            throw WebhookRefusal.notFound(id)
        }
    }

    /// A new secret (returned this once); the one it replaces stays valid for 24 hours.
    public func rotateSecret(id: String, by actor: String) throws -> SavedWebhook {
        var webhook = try stored(id)
        let now = clock.now
        let secret = Self.newSecret()
        webhook.previousSecret = webhook.secret
        webhook.previousSecretExpiresAt = now.addingTimeInterval(Self.previousSecretValidity)
        webhook.secret = secret
        webhook.updatedAt = now
        try store.put(webhook, change: change(webhook, .secretRotated, actor, now))
        return SavedWebhook(webhook: StoredWebhookView(webhook, now: now), created: false, secret: secret)
    }

    /// The webhook's changes, oldest first.
    public func changes(id: String, afterId: Int64, limit: Int) throws -> [WebhookChange] {
        _ = try stored(id)
        return try store.changes(webhookId: id, afterId: afterId, limit: limit)
    }

    /// The webhook's deliveries, newest first.
    public func deliveries(id: String, state: WebhookDelivery.State?, beforeId: Int64?, limit: Int) throws -> [WebhookDelivery] {
        _ = try stored(id)
        return try store.deliveries(webhookId: id, state: state, beforeId: beforeId, limit: limit)
    }

    /// Queues the event's delivery again now, whatever its state.
    public func retry(id: String, eventId: String, by actor: String) throws {
        let webhook = try stored(id)
        let now = clock.now
        guard try store.retry(webhookId: id, eventId: eventId, at: now) else {
            throw WebhookRefusal.deliveryNotFound(webhookId: id, eventId: eventId)
        }
        try store.put(webhook, change: WebhookChange(webhookId: id, action: .retried, actor: actor, at: now,
                                                     document: JSONValue.object([("eventId", .string(eventId))])))
    }

    /// Queues again every delivery of the webhook's events that occurred in `from..<to`; how many.
    public func replay(id: String, from: Date, to: Date, by actor: String) throws -> Int {
        let webhook = try stored(id)
        guard from < to else { throw WebhookRefusal.invalid(["'from' must be before 'to'"]) }
        let now = clock.now
        let count = try store.replay(webhookId: id, from: from, to: to, at: now)
        try store.put(webhook, change: WebhookChange(webhookId: id, action: .replayed, actor: actor, at: now, document: JSONValue.object([
            ("from", .string(RFC3339.string(from: from))), ("to", .string(RFC3339.string(from: to))), ("queued", .int(count)),
        ])))
        return count
    }

    private func stored(_ id: String) throws -> StoredWebhook {
        guard let webhook = try store.webhook(id: id) else { throw WebhookRefusal.notFound(id) }
        return webhook
    }

    /// The definition's event types, or every fault found.
    private func validate(id: String, _ definition: WebhookDefinition) throws(WebhookRefusal) -> [WebhookEventType] {
        var problems: [String] = []
        if !Identifier.isValidRuleId(id) || id.utf8.count > 64 {
            problems.append("the webhook ID must be 1–64 visible ASCII characters other than /")
        }
        if definition.events.isEmpty { problems.append("'events' must name at least one event type") }
        var types: [WebhookEventType] = []
        for name in definition.events {
            guard let type = WebhookEventType(rawValue: name) else {
                problems.append("'\(name)' is not an event type (one of \(WebhookEventType.names.joined(separator: ", ")))")
                continue
            }
            if types.contains(type) { problems.append("'\(name)' is named twice in 'events'") } else { types.append(type) }
        }
        if let bundleIds = definition.bundleIds {
            if bundleIds.isEmpty { problems.append("'bundleIds' must name at least one app, or be left out for every app") }
            let apps = keyRing.current.apps
            for bundleId in bundleIds where apps[bundleId] == nil {
                problems.append("no app with bundleId '\(bundleId)' is configured")
            }
            if Set(bundleIds).count != bundleIds.count { problems.append("'bundleIds' names an app twice") }
        }
        guard problems.isEmpty else { throw .invalid(problems) }
        return types
    }

    private func change(_ webhook: StoredWebhook, _ action: WebhookChange.Action, _ actor: String, _ now: Date) -> WebhookChange {
        WebhookChange(webhookId: webhook.id, action: action, actor: actor, at: now, document: JSONValue.object([
            ("url", .string(webhook.url)), ("events", .strings(webhook.events.map(\.rawValue))),
            ("bundleIds", webhook.bundleIds.map(JSONValue.strings) ?? .null), ("enabled", .bool(webhook.enabled)),
            ("secretLast4", .string(String(webhook.secret.suffix(4)))),
        ]))
    }

    /// `whsec_` and 32 random bytes, base64url.
    static func newSecret() -> String {
        "whsec_" + SecureRandom.token(byteCount: 32)
    }
}
