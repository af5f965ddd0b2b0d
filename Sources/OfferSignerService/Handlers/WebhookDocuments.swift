import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore

/// A webhook as the admin API shows it (`secret` only in the answer that made it).
struct WebhookDocument: Encodable {
    let webhook: StoredWebhookView
    let secret: String?

    enum Keys: String, CodingKey {
        case id, url, events, bundleIds, enabled, secretLast4, previousSecretExpiresAt, createdAt, updatedAt, secret
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(webhook.id, forKey: .id)
        try c.encode(webhook.url, forKey: .url)
        try c.encode(webhook.events, forKey: .events)
        try c.encode(webhook.bundleIds, forKey: .bundleIds)
        try c.encode(webhook.enabled, forKey: .enabled)
        try c.encode(webhook.secretLast4, forKey: .secretLast4)
        try c.encode(webhook.previousSecretExpiresAt.map(RFC3339.string(from:)), forKey: .previousSecretExpiresAt)
        try c.encode(RFC3339.string(from: webhook.createdAt), forKey: .createdAt)
        try c.encode(RFC3339.string(from: webhook.updatedAt), forKey: .updatedAt)
        if let secret { try c.encode(secret, forKey: .secret) }
    }
}

/// A delivery of the deliveries list.
struct WebhookDeliveryDocument: Encodable {
    let delivery: WebhookDelivery

    enum Keys: String, CodingKey {
        case eventId, type, occurredAt, status, attempts, queuedAt, nextAttemptAt, lastAttemptAt, lastStatusCode, lastAnswer, lastError,
             deliveredAt
    }

    func encode(to encoder: any Encoder) throws {
        let d = delivery
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(d.eventId, forKey: .eventId)
        try c.encode(d.eventType, forKey: .type)
        try c.encode(RFC3339.string(from: d.occurredAt), forKey: .occurredAt)
        try c.encode(d.state.rawValue, forKey: .status)
        try c.encode(d.attempts, forKey: .attempts)
        try c.encode(RFC3339.string(from: d.queuedAt), forKey: .queuedAt)
        try c.encode(d.nextAttemptAt.map(RFC3339.string(from:)), forKey: .nextAttemptAt)
        try c.encode(d.lastAttemptAt.map(RFC3339.string(from:)), forKey: .lastAttemptAt)
        try c.encode(d.lastStatus, forKey: .lastStatusCode)
        try c.encode(d.lastAnswer, forKey: .lastAnswer)
        try c.encode(d.lastError, forKey: .lastError)
        try c.encode(d.deliveredAt.map(RFC3339.string(from:)), forKey: .deliveredAt)
    }
}

/// A change of a webhook.
struct WebhookChangeDocument: Encodable {
    let change: WebhookChange

    enum Keys: String, CodingKey { case id, action, actor, at, webhook }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(change.id, forKey: .id)
        try c.encode(change.action.rawValue, forKey: .action)
        try c.encode(change.actor, forKey: .actor)
        try c.encode(RFC3339.string(from: change.at), forKey: .at)
        let details = change.document.flatMap { try? JSONCoding.decoder.decode(JSONValue.self, from: Data($0.utf8)) }
        try c.encode(details ?? .null, forKey: .webhook)
    }
}
