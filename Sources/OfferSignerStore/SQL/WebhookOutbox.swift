import Foundation
import OfferSignerCore
import Synchronization

/// The enabled webhooks' subscriptions, held in memory, and the one way events go into the
/// outbox: inside the caller's transaction, one row per event and subscribed webhook. With no
/// webhook subscribed to a type, writing events of it costs a lock-free read and nothing else.
/// Changes made here take effect at once; those of other instances at the next
/// ``reload(_:)`` (the delivery worker's, every few seconds).
final class WebhookOutbox: Sendable {
    private let subscribed = ReadMostly<[StoredWebhook]>([])
    private let madeByWriter = Atomic<Int>(0)

    init() {}

    /// Whether an enabled webhook subscribes to `type`.
    func isSubscribed(_ type: WebhookEventType) -> Bool {
        subscribed.read { webhooks in webhooks.contains { $0.events.contains(type) } }
    }

    /// Whether an enabled webhook takes events of `type` of the app `bundleId`.
    func isSubscribed(_ type: WebhookEventType, bundleId: String?) -> Bool {
        subscribed.read { webhooks in webhooks.contains { $0.subscribes(to: type, bundleId: bundleId) } }
    }

    /// `offer.signed` of `record`, prepared for the signature log's writer (on the caller's
    /// thread, before the record is handed to it) when an enabled webhook takes it; else nil.
    func prepareSigned(_ record: SignatureRecord) -> SignedEvent? {
        isSubscribed(.offerSigned, bundleId: record.bundleId) ? SignedEvent(record) : nil
    }

    /// How many `offer.signed` events the signature log's writer had to make itself (their
    /// request found no webhook taking them: one subscribed meanwhile), not prepared before.
    var signedMadeByWriter: Int { madeByWriter.load(ordering: .relaxed) }

    /// Counts an `offer.signed` the signature log's writer made itself.
    func countMadeByWriter() {
        madeByWriter.add(1, ordering: .relaxed)
    }

    /// Reads the enabled webhooks' subscriptions from `db` (not their secrets: the outbox signs nothing).
    func reload(_ db: some SQLConnection) throws {
        let enabled = try SQLWebhookRows.subscriptions(db).filter(\.enabled)
        subscribed.write { $0 = enabled }
    }

    /// Writes `events` for their subscribers inside `db`'s open transaction, up to 64 rows a
    /// statement (one round trip for a whole signature batch on PostgreSQL); how many rows.
    /// The values go into one flat array, and each statement's text is one of ``insertTexts``,
    /// made once (on SQLite the connection finds its prepared statement by the text's address,
    /// without hashing ~600 bytes of SQL per batch).
    @discardableResult
    func write(_ events: [some OutboxEvent], _ db: some SQLConnection, now: Date) throws -> Int {
        let webhooks = subscribed.read()
        guard !webhooks.isEmpty else { return 0 }
        let queued = SQLValue.integer(now.milliseconds)
        var values: [SQLValue] = []
        values.reserveCapacity(min(events.count * webhooks.count, Self.rowsPerStatement) * Self.columns)
        var written = 0
        for event in events {
            var body: SQLValue?
            for webhook in webhooks where webhook.subscribes(to: event.type, bundleId: event.bundleId) {
                if body == nil { body = .text(event.document) }
                values.append(.text(webhook.id))
                values.append(.text(event.id))
                values.append(.text(event.type.rawValue))
                values.append(.text(event.orderingKey))
                values.append(.integer(event.occurredAt.milliseconds))
                values.append(body!)
                values.append(queued)
                values.append(queued)
                if values.count == Self.rowsPerStatement * Self.columns {
                    written += try db.change(Self.insertTexts[Self.rowsPerStatement - 1], values)
                    values.removeAll(keepingCapacity: true)
                }
            }
        }
        if !values.isEmpty { written += try db.change(Self.insertTexts[values.count / Self.columns - 1], values) }
        return written
    }

    /// The most rows one insert statement writes.
    static let rowsPerStatement = 64
    /// The values of one row.
    private static let columns = 8
    /// The insert statement of 1…``rowsPerStatement`` rows, by rows − 1.
    static let insertTexts: [String] = (1...rowsPerStatement).map { rows in
        """
        INSERT INTO webhook_outbox (webhook_id, event_id, event_type, ordering_key, occurred_at_ms, body, state, attempts,
            queued_at_ms, next_attempt_ms)
        VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)", count: rows).joined(separator: ", "))
        """
    }
}
