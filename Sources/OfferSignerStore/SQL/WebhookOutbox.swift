import Foundation
import OfferSignerCore

/// The enabled webhooks' subscriptions, held in memory, and the one way events go into the
/// outbox: inside the caller's transaction, one row per event and subscribed webhook. With no
/// webhook subscribed to a type, writing events of it costs a lock-free read and nothing else.
/// Changes made here take effect at once; those of other instances at the next
/// ``reload(_:)`` (the delivery worker's, every few seconds).
final class WebhookOutbox: Sendable {
    private let subscribed = ReadMostly<[StoredWebhook]>([])

    init() {}

    /// Whether an enabled webhook subscribes to `type`.
    func isSubscribed(_ type: WebhookEventType) -> Bool {
        subscribed.read { webhooks in webhooks.contains { $0.events.contains(type) } }
    }

    /// Whether an enabled webhook takes events of `type` of the app `bundleId`.
    func isSubscribed(_ type: WebhookEventType, bundleId: String?) -> Bool {
        subscribed.read { webhooks in webhooks.contains { $0.subscribes(to: type, bundleId: bundleId) } }
    }

    /// Reads the enabled webhooks' subscriptions from `db` (not their secrets: the outbox signs nothing).
    func reload(_ db: some SQLConnection) throws {
        let enabled = try SQLWebhookRows.subscriptions(db).filter(\.enabled)
        subscribed.write { $0 = enabled }
    }

    /// Writes `events` for their subscribers inside `db`'s open transaction, up to 64 rows a
    /// statement (one round trip for a whole signature batch on PostgreSQL); how many rows.
    @discardableResult
    func write(_ events: [some OutboxEvent], _ db: some SQLConnection, now: Date) throws -> Int {
        let webhooks = subscribed.read()
        guard !webhooks.isEmpty else { return 0 }
        let queued = SQLValue.integer(now.milliseconds)
        var rows: [[SQLValue]] = []
        for event in events {
            var body: SQLValue?
            for webhook in webhooks where webhook.subscribes(to: event.type, bundleId: event.bundleId) {
                if body == nil { body = .text(event.document) }
                rows.append([.text(webhook.id), .text(event.id), .text(event.type.rawValue), .text(event.orderingKey),
                             .integer(event.occurredAt.milliseconds), body!, queued, queued])
            }
        }
        var written = 0
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 64, rows.count)]
            written += try db.change("""
                INSERT INTO webhook_outbox (webhook_id, event_id, event_type, ordering_key, occurred_at_ms, body, state, attempts,
                    queued_at_ms, next_attempt_ms)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)", count: chunk.count).joined(separator: ", "))
                """, chunk.flatMap { $0 })
            start += chunk.count
        }
        return written
    }
}
