import Foundation
import OfferSignerCore

/// How webhooks and deliveries are read from their rows.
enum SQLWebhookRows {
    static let webhookColumns = """
        webhook_id, url, events, bundle_ids, enabled, secret, previous_secret, previous_secret_until_ms, created_at_ms, updated_at_ms
        """
    static let deliveryColumns = """
        id, webhook_id, event_id, event_type, occurred_at_ms, state, attempts, queued_at_ms, next_attempt_ms, last_attempt_ms,
        last_status, last_answer, last_error, delivered_at_ms
        """

    /// The columns of a webhook without its secrets (empty in what is read): what the outbox's
    /// subscriptions need, readable with no key configured.
    static let subscriptionColumns = """
        webhook_id, url, events, bundle_ids, enabled, '', NULL, NULL, created_at_ms, updated_at_ms
        """

    /// Every webhook, by ID, its secrets opened with `secrets` (nil: no key, plain text only).
    static func webhooks(_ db: some SQLConnection, secrets: WebhookSecretSealer?) throws -> [StoredWebhook] {
        try db.select("SELECT \(webhookColumns) FROM webhooks ORDER BY webhook_id") { try webhook($0, secrets: secrets) }
    }

    /// Every webhook, by ID, without its secrets (``subscriptionColumns``).
    static func subscriptions(_ db: some SQLConnection) throws -> [StoredWebhook] {
        try db.select("SELECT \(subscriptionColumns) FROM webhooks ORDER BY webhook_id") { try webhook($0, secrets: nil) }
    }

    /// The webhook of `row`, its secrets opened with `secrets` (sealed ones refused without it).
    static func webhook(_ row: some StoreRow, secrets: WebhookSecretSealer?) throws -> StoredWebhook {
        let id = row.text(0)
        let events = try row.text(2).split(separator: ",").map { name in
            guard let type = WebhookEventType(rawValue: String(name)) else { throw UnreadableWebhook(id: row.text(0)) }
            return type
        }
        let secret = try WebhookSecretSealer.open(row.text(5), webhookId: id, with: secrets)
        let previousSecret = try row.optionalText(6).map { stored throws(WebhookSecretError) in
            try WebhookSecretSealer.open(stored, webhookId: id, with: secrets)
        }
        return StoredWebhook(id: id, url: row.text(1), events: events,
                             bundleIds: row.optionalText(3).map { $0.split(separator: ",").map(String.init) },
                             enabled: row.int64(4) != 0, secret: secret, previousSecret: previousSecret,
                             previousSecretExpiresAt: row.optionalInt64(7).map(Date.init(milliseconds:)),
                             createdAt: Date(milliseconds: row.int64(8)), updatedAt: Date(milliseconds: row.int64(9)))
    }

    static func delivery(_ row: some StoreRow) throws -> WebhookDelivery {
        guard let state = WebhookDelivery.State(rawValue: row.text(5)) else { throw UnreadableWebhook(id: row.text(1)) }
        return WebhookDelivery(id: row.int64(0), webhookId: row.text(1), eventId: row.text(2), eventType: row.text(3),
                               occurredAt: Date(milliseconds: row.int64(4)), state: state, attempts: row.int(6),
                               queuedAt: Date(milliseconds: row.int64(7)),
                               nextAttemptAt: state == .pending ? Date(milliseconds: row.int64(8)) : nil,
                               lastAttemptAt: row.optionalInt64(9).map(Date.init(milliseconds:)),
                               lastStatus: row.optionalInt64(10).map { Int($0) }, lastAnswer: row.optionalText(11),
                               lastError: row.optionalText(12), deliveredAt: row.optionalInt64(13).map(Date.init(milliseconds:)))
    }
}

/// A webhook or delivery row this build cannot read (an unknown event type or state).
struct UnreadableWebhook: Error, CustomStringConvertible {
    let id: String
    var description: String { "the stored webhook '\(id)' (or one of its deliveries) cannot be read by this version" }
}
