import Foundation
import OfferSignerCore

/// The links made at Apple (`app_account_token_links`), the same on both engines: one row per
/// ended attempt, never changed.
final class SQLAppAccountTokenLinkStore<Database: SQLDatabase>: AppAccountTokenLinkStore, Sendable {
    private let database: Database
    /// Where `appAccountToken.linked` events go, in the link's transaction.
    private let outbox: WebhookOutbox?

    init(database: Database, outbox: WebhookOutbox? = nil) {
        self.database = database
        self.outbox = outbox
    }

    public func record(_ link: AppAccountTokenLink) throws -> AppAccountTokenLink {
        try database.inTransaction { db in
            _ = try db.change("""
                INSERT INTO app_account_token_links (bundle_id, environment, original_transaction_id, app_account_token, outcome,
                    existing_token, reason, actor, request_id, forced, attempts, at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(link.bundleId), .text(link.environment.rawValue), .text(link.originalTransactionId),
                      .text(link.appAccountToken), .text(link.outcome.rawValue), .optional(link.existingToken), .optional(link.reason),
                      .text(link.actor), .optional(link.requestId), .integer(link.forced ? 1 : 0), .integer(Int64(link.attempts)),
                      .integer(link.at.milliseconds)])
            var recorded = link
            recorded.id = try db.first("""
                SELECT MAX(id) FROM app_account_token_links WHERE bundle_id = ? AND environment = ? AND original_transaction_id = ?
                """, [.text(link.bundleId), .text(link.environment.rawValue), .text(link.originalTransactionId)]) { $0.int64(0) } ?? 0
            if link.outcome == .linked, let outbox, outbox.isSubscribed(.appAccountTokenLinked) {
                try outbox.write([WebhookEvents.linked(recorded)], db, now: Date())
            }
            return recorded
        }
    }

    public func links(bundleId: String?, originalTransactionId: String?, afterId: Int64, limit: Int) throws -> [AppAccountTokenLink] {
        var conditions = SQLConditions()
        conditions.add("id > ?", .integer(afterId))
        conditions.add("bundle_id", equals: bundleId)
        conditions.add("original_transaction_id", equals: originalTransactionId)
        return try database.withReader(.audit) { db in
            try db.select("SELECT \(LinkSQL.columns) FROM app_account_token_links WHERE \(conditions.sql) ORDER BY id LIMIT ?",
                          conditions.values + [.limit(limit)]) { try Self.link($0) }
        }
    }

    public func linkedToken(bundleId: String, environment: AppStoreEnvironment, originalTransactionId: String) throws -> String? {
        try database.withReader { db in
            try db.first("""
                SELECT app_account_token FROM app_account_token_links
                WHERE bundle_id = ? AND environment = ? AND original_transaction_id = ? AND outcome = 'linked'
                ORDER BY id DESC LIMIT 1
                """, [.text(bundleId), .text(environment.rawValue), .text(originalTransactionId)]) { $0.text(0) }
        }
    }

    public func linkedSubscriptions(appAccountToken: String, bundleId: String, environment: AppStoreEnvironment) throws -> [String] {
        try database.withReader { db in
            // Each subscription whose latest link is to this token.
            try db.select("""
                SELECT l.original_transaction_id FROM app_account_token_links l
                WHERE l.app_account_token = ? AND l.bundle_id = ? AND l.environment = ? AND l.outcome = 'linked'
                  AND l.id = (SELECT MAX(m.id) FROM app_account_token_links m
                              WHERE m.bundle_id = l.bundle_id AND m.environment = l.environment
                                AND m.original_transaction_id = l.original_transaction_id AND m.outcome = 'linked')
                ORDER BY l.original_transaction_id
                """, [.text(appAccountToken), .text(bundleId), .text(environment.rawValue)]) { $0.text(0) }
        }
    }

    private static func link(_ row: some StoreRow) throws -> AppAccountTokenLink {
        guard let environment = AppStoreEnvironment(rawValue: row.text(2)),
              let outcome = AppAccountTokenLink.Outcome(rawValue: row.text(5)) else {
            throw UnreadableAppAccountTokenLink(id: row.int64(0))
        }
        return AppAccountTokenLink(id: row.int64(0), bundleId: row.text(1), environment: environment, originalTransactionId: row.text(3),
                                   appAccountToken: row.text(4), outcome: outcome, existingToken: row.optionalText(6),
                                   reason: row.optionalText(7), actor: row.text(8), requestId: row.optionalText(9),
                                   forced: row.int64(10) != 0, attempts: Int(row.int64(11)), at: Date(milliseconds: row.int64(12)))
    }
}

/// An `app_account_token_links` row this build cannot read (an environment or outcome it does not know).
struct UnreadableAppAccountTokenLink: Error, CustomStringConvertible {
    let id: Int64
    var description: String { "app account token link \(id) names an environment or outcome this build does not know" }
}

/// The store's columns (a generic class cannot hold stored statics).
private enum LinkSQL {
    static let columns = """
        id, bundle_id, environment, original_transaction_id, app_account_token, outcome, existing_token, reason, actor, request_id,
        forced, attempts, at_ms
        """
}
