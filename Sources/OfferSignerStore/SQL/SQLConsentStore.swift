import Foundation
import OfferSignerCore

/// Consent rescinded and cleared (`consent_events`), the same on both engines. A rescinding
/// is inserted `ON CONFLICT DO NOTHING` on its notification's UUID, so Apple's retries and two
/// instances receiving one notification record it once.
final class SQLConsentStore<Database: SQLDatabase>: ConsentStore, Sendable {
    private let database: Database
    /// Where `consent.cleared` events go, in the clearing's transaction.
    private let outbox: WebhookOutbox?

    init(database: Database, outbox: WebhookOutbox? = nil) {
        self.database = database
        self.outbox = outbox
    }

    /// Inserts a rescinding unless its notification was recorded already (in the caller's
    /// transaction: the history store records one with its notification); whether it did.
    static func insertRescinding(_ event: ConsentEvent, _ db: Database.Connection) throws -> Bool {
        try insert(event, db, onConflict: "ON CONFLICT (notification_uuid) DO NOTHING") == 1
    }

    /// A clearing is dated `now`, when it is made, never at the rescinding's `signedDate`.
    public func clear(appTransactionId: String, by actor: String, reason: String, at now: Date) throws -> [ConsentEvent] {
        try database.inTransaction { db in
            let rescinded = ConsentEvent.inForce(try Self.events(of: [appTransactionId], environment: nil, db))
                .filter { $0.action == .rescind }
            let cleared = try rescinded.map { event in
                let cleared = ConsentEvent(appTransactionId: event.appTransactionId, environment: event.environment,
                                           bundleId: event.bundleId, action: .clear, at: now, recordedAt: now,
                                           actor: actor, reason: reason)
                _ = try Self.insert(cleared, db, onConflict: "")
                return cleared
            }
            if let outbox, outbox.isSubscribed(.consentCleared) { try outbox.write(cleared.map(WebhookEvents.consent), db, now: Date()) }
            return cleared
        }
    }

    public func rescinded(appTransactionIds: [String], environment: AppStoreEnvironment) throws -> [ConsentEvent] {
        guard !appTransactionIds.isEmpty else { return [] }
        return try database.withReader { db in
            ConsentEvent.inForce(try Self.events(of: appTransactionIds, environment: environment, db)).filter { $0.action == .rescind }
        }
    }

    public func event(id: Int64) throws -> ConsentEvent? {
        try database.withReader { db in
            try db.first("SELECT \(ConsentSQL.columns) FROM consent_events WHERE id = ?", [.integer(id)]) { try Self.event($0) }
        }
    }

    public func events(bundleId: String?, afterId: Int64, limit: Int) throws -> [ConsentEvent] {
        var conditions = SQLConditions()
        conditions.add("id > ?", .integer(afterId))
        conditions.add("bundle_id", equals: bundleId)
        return try database.withReader(.audit) { db in
            try db.select("SELECT \(ConsentSQL.columns) FROM consent_events WHERE \(conditions.sql) ORDER BY id LIMIT ?",
                          conditions.values + [.limit(limit)]) { try Self.event($0) }
        }
    }

    private static func events(of appTransactionIds: [String], environment: AppStoreEnvironment?,
                               _ db: Database.Connection) throws -> [ConsentEvent] {
        var conditions = SQLConditions()
        conditions.add(db.isOne(of: "app_transaction_id"), .textArray(appTransactionIds))
        conditions.add("environment", equals: environment?.rawValue)
        return try db.select("SELECT \(ConsentSQL.columns) FROM consent_events WHERE \(conditions.sql)", conditions.values) { try event($0) }
    }

    private static func insert(_ e: ConsentEvent, _ db: Database.Connection, onConflict: String) throws -> Int {
        try db.change("""
            INSERT INTO consent_events (app_transaction_id, environment, bundle_id, action, at_ms, recorded_at_ms, notification_uuid,
                actor, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \(onConflict)
            """, [.text(e.appTransactionId), .text(e.environment.rawValue), .text(e.bundleId), .text(e.action.rawValue),
                  .integer(e.at.milliseconds), .integer(e.recordedAt.milliseconds), .optional(e.notificationUUID),
                  .optional(e.actor), .optional(e.reason)])
    }

    private static func event(_ row: some StoreRow) throws -> ConsentEvent {
        guard let environment = AppStoreEnvironment(rawValue: row.text(2)),
              let action = ConsentEvent.Action(rawValue: row.text(4)) else {
            throw UnreadableConsentEvent(id: row.int64(0))
        }
        return ConsentEvent(id: row.int64(0), appTransactionId: row.text(1), environment: environment, bundleId: row.text(3),
                            action: action, at: Date(milliseconds: row.int64(5)), recordedAt: Date(milliseconds: row.int64(6)),
                            notificationUUID: row.optionalText(7), actor: row.optionalText(8), reason: row.optionalText(9))
    }
}

/// A `consent_events` row this build cannot read (an environment or action it does not know).
struct UnreadableConsentEvent: Error, CustomStringConvertible {
    let id: Int64
    var description: String { "consent event \(id) names an environment or action this build does not know" }
}

/// The statements and constants of the store (a generic class cannot hold stored statics).
private enum ConsentSQL {
    static let columns = """
        id, app_transaction_id, environment, bundle_id, action, at_ms, recorded_at_ms, notification_uuid, actor, reason
        """
}
