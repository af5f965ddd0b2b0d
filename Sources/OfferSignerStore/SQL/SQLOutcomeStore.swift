import Foundation
import OfferSignerCore

/// Redemptions matched to signatures (`offer_redemptions`) and holdout decisions
/// (`offer_holdouts`), written once for both engines. A subscription's redemptions are
/// re-derived from its transactions (`transactions`, by the (environment,
/// original_transaction_id) index) and matched against the signature log (by its
/// (user_id, offer_id, timestamp_ms) index): a few indexed reads, and a write only when
/// something changed.
final class SQLOutcomeStore<Database: SQLDatabase>: OutcomeStore, Sendable {
    private let database: Database

    /// Where redemption and outcome events go, in the refresh's transaction.
    private let outbox: WebhookOutbox?

    init(database: Database, outbox: WebhookOutbox? = nil) {
        self.database = database
        self.outbox = outbox
    }

    /// A row of ``columns``; nil when its environment or offer type is not one this build knows.
    static func record(_ row: some StoreRow) -> RedemptionRecord? {
        guard let environment = AppStoreEnvironment(rawValue: row.text(1)),
              let offerType = Int32(exactly: row.int64(5)).flatMap(OfferType.init(rawValue:)) else { return nil }
        let revenue = (try? JSONDecoder().decode([String: Int].self, from: Data(row.text(13).utf8))) ?? [:]
        let run = RedemptionRun(
            offerType: offerType, offerIdentifier: row.optionalText(4), bundleId: row.text(3), environment: environment,
            subscriptionGroupIdentifier: row.text(7), originalTransactionId: row.text(6), transactionId: row.text(2),
            appAccountToken: row.optionalText(8), purchaseDate: Date(milliseconds: row.int64(9)), refunded: row.int64(10) != 0,
            retained: row.int64(11) != 0, endsAt: Date(milliseconds: row.int64(12)), revenue: revenue)
        return RedemptionRecord(id: row.int64(0), run: run, signatureNonce: row.optionalText(14), managed: row.int64(15) != 0)
    }

    // MARK: Refreshing one subscription

    public func refresh(_ subscription: SubscriptionRef) throws -> [RedemptionRecord] {
        let key: [SQLValue] = [.text(subscription.environment.rawValue), .text(subscription.originalTransactionId),
                               .text(subscription.bundleId)]
        // Every read on one connection: the subscription's transactions and stored redemptions
        // (all a notification without an offer costs), then currencies and signatures.
        let found = try database.withReader { db -> (stored: [RedemptionRecord], derived: [RedemptionRecord])? in
            let transactions = try db.select("""
                SELECT \(HistoryRows.transactionColumns) FROM transactions
                WHERE environment = ? AND original_transaction_id = ? AND bundle_id = ?
                """, key) { HistoryRows.transaction($0) }.compactMap { $0 }
            let stored = try db.select("""
                SELECT \(OutcomeSQL.columns) FROM offer_redemptions WHERE environment = ? AND original_transaction_id = ? AND bundle_id = ?
                """, key) { Self.record($0) }.compactMap { $0 }
            guard transactions.contains(where: \.isUnderOffer) || !stored.isEmpty else { return nil }
            var runs = RedemptionRun.runs(in: transactions)
            if !runs.isEmpty { runs = RedemptionRun.runs(in: transactions, currencies: try Self.currencies(db, key)) }
            return (stored, try Self.match(runs, subscription: subscription, db))
        }
        guard let (stored, derived) = found else { return [] }
        let storedByTransaction = Dictionary(stored.map { ($0.run.transactionId, $0) }, uniquingKeysWith: { a, _ in a })
        let unchanged = derived.count == stored.count && derived.allSatisfy { record in
            storedByTransaction[record.run.transactionId].map {
                $0.run == record.run && $0.signatureNonce == record.signatureNonce && $0.managed == record.managed
            } ?? false
        }
        guard !unchanged else { return [] }
        let now = Date().milliseconds
        try database.inTransaction { db in
            for record in derived { try Self.upsert(record, at: now, db) }
            let kept = Set(derived.map(\.run.transactionId))
            for old in stored where !kept.contains(old.run.transactionId) {
                try db.change("DELETE FROM offer_redemptions WHERE id = ?", [.integer(old.id)])
            }
            if let outbox { try Self.announce(derived, storedByTransaction, outbox, db) }
        }
        return derived.filter { storedByTransaction[$0.run.transactionId] == nil && !$0.matched && $0.managed }
    }

    /// Writes `redemption.matched|unmatched` for redemptions newly found (or newly matched) and
    /// `outcome.changed` for those whose outcome became another, into the outbox.
    private static func announce(_ derived: [RedemptionRecord], _ stored: [String: RedemptionRecord], _ outbox: WebhookOutbox,
                                 _ db: Database.Connection) throws {
        let now = Date()
        var events: [WebhookEvent] = []
        for record in derived {
            let old = stored[record.run.transactionId]
            if (old == nil && (record.matched || record.managed)) || (old?.matched == false && record.matched) {
                let type: WebhookEventType = record.matched ? .redemptionMatched : .redemptionUnmatched
                if outbox.isSubscribed(type) { events.append(WebhookEvents.redemption(record)) }
            }
            guard outbox.isSubscribed(.outcomeChanged) else { continue }
            let outcome = RedemptionOutcome.classify(refunded: record.run.refunded, retained: record.run.retained,
                                                     endsAt: record.run.endsAt, now: now)
            let previous = old.map { RedemptionOutcome.classify(refunded: $0.run.refunded, retained: $0.run.retained,
                                                               endsAt: $0.run.endsAt, now: now) }
            if outcome != .inOffer, outcome != previous {
                events.append(WebhookEvents.outcomeChanged(record, from: previous, to: outcome, at: now))
            }
        }
        if !events.isEmpty { try outbox.write(events, db, now: now) }
    }

    /// The currency of each transaction of the subscription, read from its signed JWS (verified when stored).
    private static func currencies(_ db: Database.Connection, _ key: [SQLValue]) throws -> [String: String] {
        let rows = try db.select("""
            SELECT transaction_id, signed_transaction FROM transactions
            WHERE environment = ? AND original_transaction_id = ? AND bundle_id = ? AND price IS NOT NULL
            """, key) { ($0.text(0), $0.text(1)) }
        var found: [String: String] = [:]
        for (transactionId, jws) in rows {
            if let currency = SignedPayloadField.string("currency", inJWS: jws) { found[transactionId] = currency }
        }
        return found
    }

    /// The runs as records, each matched to a signature of the log when one explains it.
    private static func match(_ runs: [RedemptionRun], subscription: SubscriptionRef, _ db: Database.Connection) throws -> [RedemptionRecord] {
        let window = Int64(RedemptionMatcher.window * 1000)
        var candidates: [String: RedemptionMatcher.Signature] = [:]
        let offerIds = Set(runs.compactMap(\.offerIdentifier))
        for run in runs {
            guard let offerId = run.offerIdentifier else { continue }
            let end = run.purchaseDate.milliseconds
            // Token-less signatures of the proven subscription, and JWS signatures bound to it by
            // their `transactionId` claim whatever their user: both by the (transaction_id, offer_id,
            // timestamp_ms) index.
            var lookups: [(String, [SQLValue])] = [(
                """
                transaction_id = ? AND offer_id = ? AND timestamp_ms >= ? AND timestamp_ms <= ? AND bundle_id = ?
                AND (user_id = '' OR format = 'jws')
                """,
                [.text(run.originalTransactionId), .text(offerId), .integer(end - window), .integer(end), .text(run.bundleId)])]
            if let token = run.appAccountToken, !token.isEmpty {
                lookups.append(("user_id = ? AND offer_id = ? AND timestamp_ms >= ? AND timestamp_ms <= ? AND bundle_id = ?",
                                [.text(token), .text(offerId), .integer(end - window), .integer(end), .text(run.bundleId)]))
            }
            for (condition, values) in lookups {
                for signature in try db.select("""
                    SELECT nonce, bundle_id, offer_id, user_id, transaction_id, timestamp_ms FROM signatures WHERE \(condition)
                    """, values, row: { row in
                        RedemptionMatcher.Signature(nonce: row.text(0), bundleId: row.text(1), offerId: row.text(2), userId: row.text(3),
                                                    transactionId: row.optionalText(4), timestamp: Date(milliseconds: row.int64(5)))
                    }) {
                    candidates[signature.nonce] = signature
                }
            }
        }
        var used: Set<String> = []
        if !candidates.isEmpty {
            used = Set(try db.select("""
                SELECT signature_nonce FROM offer_redemptions WHERE \(db.isOne(of: "signature_nonce"))
                AND NOT (environment = ? AND original_transaction_id = ? AND bundle_id = ?)
                """, [.textArray(Array(candidates.keys)), .text(subscription.environment.rawValue),
                      .text(subscription.originalTransactionId), .text(subscription.bundleId)]) { $0.text(0) })
        }
        let managed = offerIds.isEmpty ? [] : Set(try db.select(
            "SELECT offer_id FROM offers WHERE bundle_id = ? AND \(db.isOne(of: "offer_id"))",
            [.text(subscription.bundleId), .textArray(Array(offerIds))]) { $0.text(0) })
        let matches = RedemptionMatcher.match(runs.compactMap { run in
            run.offerIdentifier.map {
                RedemptionMatcher.Redemption(id: run.transactionId, bundleId: run.bundleId, offerId: $0, appAccountToken: run.appAccountToken,
                                             originalTransactionId: run.originalTransactionId, purchaseDate: run.purchaseDate)
            }
        }, signatures: Array(candidates.values), used: used)
        return runs.map { run in
            RedemptionRecord(id: 0, run: run, signatureNonce: matches[run.transactionId],
                             managed: run.offerIdentifier.map(managed.contains) ?? false)
        }
    }

    private static func upsert(_ record: RedemptionRecord, at now: Int64, _ db: Database.Connection) throws {
        let run = record.run
        let revenue = String(decoding: (try? OutcomeSQL.revenueEncoder.encode(run.revenue)) ?? Data("{}".utf8), as: UTF8.self)
        try db.change("""
            INSERT INTO offer_redemptions (environment, transaction_id, bundle_id, offer_id, offer_type, original_transaction_id, group_id,
                app_account_token, purchase_ms, refunded, retained, ends_ms, revenue_json, signature_nonce, managed, updated_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (environment, transaction_id) DO UPDATE SET bundle_id = excluded.bundle_id, offer_id = excluded.offer_id,
                offer_type = excluded.offer_type, original_transaction_id = excluded.original_transaction_id, group_id = excluded.group_id,
                app_account_token = excluded.app_account_token, purchase_ms = excluded.purchase_ms, refunded = excluded.refunded,
                retained = excluded.retained, ends_ms = excluded.ends_ms, revenue_json = excluded.revenue_json,
                signature_nonce = excluded.signature_nonce, managed = excluded.managed, updated_at_ms = excluded.updated_at_ms
            """, [.text(run.environment.rawValue), .text(run.transactionId), .text(run.bundleId), .optional(run.offerIdentifier),
                  .integer(Int64(run.offerType.rawValue)), .text(run.originalTransactionId), .text(run.subscriptionGroupIdentifier),
                  .optional(run.appAccountToken), .integer(run.purchaseDate.milliseconds), .integer(run.refunded ? 1 : 0),
                  .integer(run.retained ? 1 : 0), .integer(run.endsAt.milliseconds), .text(revenue), .optional(record.signatureNonce),
                  .integer(record.managed ? 1 : 0), .integer(now)])
    }

    // MARK: Rebuilding

    public func subscriptionsWithOffers() throws -> [SubscriptionRef] {
        try database.withReader(.audit) { db in
            try db.select("""
                SELECT DISTINCT bundle_id, environment, original_transaction_id FROM transactions WHERE offer_type IN (2, 4)
                """) { row in
                AppStoreEnvironment(rawValue: row.text(1)).map {
                    SubscriptionRef(bundleId: row.text(0), environment: $0, originalTransactionId: row.text(2))
                }
            }.compactMap { $0 }
        }
    }

    public func deleteAllRedemptions() throws {
        _ = try database.inTransaction { db in try db.change("DELETE FROM offer_redemptions") }
    }

    // MARK: Reading

    public func redemptions(matching filter: RedemptionFilter, afterId: Int64, limit: Int) throws -> [RedemptionRecord] {
        var conditions = SQLConditions()
        conditions.add("id > ?", .integer(afterId))
        conditions.add("bundle_id", equals: filter.bundleId)
        conditions.add("offer_id", equals: filter.offerId)
        conditions.add("environment", equals: filter.environment?.rawValue)
        if let from = filter.from { conditions.add("purchase_ms >= ?", .integer(from)) }
        if let to = filter.to { conditions.add("purchase_ms < ?", .integer(to)) }
        var sql = "SELECT \(OutcomeSQL.columns) FROM offer_redemptions WHERE \(conditions.sql)"
        if let matched = filter.matched { sql += matched ? " AND signature_nonce IS NOT NULL" : " AND signature_nonce IS NULL" }
        sql += " ORDER BY id LIMIT ?"
        return try database.withReader(.audit) { db in
            try db.select(sql, conditions.values + [.limit(limit)]) { Self.record($0) }.compactMap { $0 }
        }
    }

    public func recordHoldout(_ decision: HoldoutDecision) throws {
        _ = try database.inTransaction { db in
            try db.change("""
                INSERT INTO offer_holdouts (bundle_id, offer_id, user_key, environment, decided_at_ms, percent) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (bundle_id, offer_id, user_key) DO NOTHING
                """, [.text(decision.bundleId), .text(decision.offerId), .text(decision.userKey), .text(decision.environment.rawValue),
                      .integer(decision.decidedAt), .integer(Int64(decision.percent))])
        }
    }

    public func firstDecision(bundleId: String, offerId: String, userKey: String) throws -> UserDecision? {
        let byTransaction = userKey.hasPrefix(OfferHoldout.transactionUserPrefix)
        let signedCondition = byTransaction
            ? "transaction_id = ? AND user_id = '' AND offer_id = ? AND bundle_id = ?"
            : "user_id = ? AND offer_id = ? AND bundle_id = ?"
        let subject = byTransaction ? String(userKey.dropFirst(OfferHoldout.transactionUserPrefix.count)) : userKey
        return try database.withReader { db -> UserDecision? in
            if let at = try db.first("SELECT MIN(timestamp_ms) FROM signatures WHERE \(signedCondition)",
                                     [.text(subject), .text(offerId), .text(bundleId)], row: { $0.optionalInt64(0) }) ?? nil {
                return UserDecision(userKey: userKey, decidedAt: at, heldOut: false)
            }
            return try db.first("SELECT decided_at_ms FROM offer_holdouts WHERE bundle_id = ? AND offer_id = ? AND user_key = ?",
                                [.text(bundleId), .text(offerId), .text(userKey)]) {
                UserDecision(userKey: userKey, decidedAt: $0.int64(0), heldOut: true)
            }
        }
    }

    public func firstDecisions(bundleId: String, offerId: String, environment: AppStoreEnvironment, before: Int64) throws -> [UserDecision] {
        let (signed, heldOut) = try database.withReader(.audit) { db in
            let signed = try db.select("""
                SELECT CASE WHEN user_id = '' THEN 'transaction:' || COALESCE(transaction_id, '') ELSE user_id END, MIN(timestamp_ms)
                FROM signatures WHERE offer_id = ? AND timestamp_ms < ? AND bundle_id = ? GROUP BY 1
                """, [.text(offerId), .integer(before), .text(bundleId)]) { ($0.text(0), $0.int64(1)) }
            let heldOut = try db.select("""
                SELECT user_key, decided_at_ms FROM offer_holdouts
                WHERE bundle_id = ? AND offer_id = ? AND environment = ? AND decided_at_ms < ?
                """, [.text(bundleId), .text(offerId), .text(environment.rawValue), .integer(before)]) { ($0.text(0), $0.int64(1)) }
            return (signed, heldOut)
        }
        // A signed user is never counted as held out: the first signature decides when there is one.
        var first: [String: UserDecision] = [:]
        for (user, at) in heldOut { first[user] = UserDecision(userKey: user, decidedAt: at, heldOut: true) }
        for (user, at) in signed { first[user] = UserDecision(userKey: user, decidedAt: at, heldOut: false) }
        return first.values.sorted { $0.userKey < $1.userKey }
    }

    public func decisionReturns(bundleId: String, offerId: String, environment: AppStoreEnvironment, groupId: String?,
                                from: Int64, to: Int64) throws -> DecisionReturns {
        let group = groupId ?? ""
        let rows = try database.withReader(.audit) { db in
            try db.select(OutcomeSQL.decisionReturnsSQL, [
                .text(offerId), .integer(to), .text(bundleId),
                .text(bundleId), .text(offerId), .text(environment.rawValue), .integer(to),
                .text(bundleId), .text(environment.rawValue), .text(group),
                .text(bundleId), .text(environment.rawValue), .text(group),
                .integer(from),
            ]) { ($0.int64(0), $0.int(1), $0.int(2)) }
        }
        var returns = DecisionReturns()
        for (held, users, returned) in rows {
            if held == 1 {
                returns.holdoutUsers = users
                returns.holdoutReturned = returned
            } else {
                returns.treatedUsers = users
                returns.treatedReturned = returned
            }
        }
        return returns
    }

    public func signatureCount(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> Int {
        try database.withReader(.audit) { db in
            try db.first("""
                SELECT COUNT(*) FROM signatures WHERE offer_id = ? AND timestamp_ms >= ? AND timestamp_ms < ? AND bundle_id = ?
                """, [.text(offerId), .integer(from), .integer(to), .text(bundleId)]) { $0.int(0) } ?? 0
        }
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteOutcomeStore = SQLOutcomeStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLOutcomeStore = SQLOutcomeStore<PostgreSQLDatabase>

/// The statements and constants of the store (a generic class cannot hold stored statics).
private enum OutcomeSQL {
    static let columns = """
        id, environment, transaction_id, bundle_id, offer_id, offer_type, original_transaction_id, group_id, app_account_token,
        purchase_ms, refunded, retained, ends_ms, revenue_json, signature_nonce, managed
        """

    /// Revenue as JSON with its currencies in order, so equal revenue is equal text.
    static let revenueEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Each user's decision (`s`: first signature, `h`: first holdout; a user with a signature
    /// is treated from it, never held out), then per group the users decided in the period and
    /// those with a purchase of the group at or after their decision (as matching counts a
    /// redemption at the signature's own timestamp) (by app account token, or for `transaction:`
    /// users by subscription: each an indexed lookup). `environment || ''` keeps SQLite's planner,
    /// which has no statistics, on the (bundle_id, user_id) index: with `environment = ?` it chose
    /// the (environment, original_transaction_id) index and walked every transaction per user.
    static let decisionReturnsSQL = """
        WITH s AS (
            SELECT CASE WHEN user_id = '' THEN 'transaction:' || COALESCE(transaction_id, '') ELSE user_id END AS user_key,
                   MIN(timestamp_ms) AS at
            FROM signatures WHERE offer_id = ? AND timestamp_ms < ? AND bundle_id = ? GROUP BY 1
        ), h AS (
            SELECT user_key, decided_at_ms AS at FROM offer_holdouts
            WHERE bundle_id = ? AND offer_id = ? AND environment = ? AND decided_at_ms < ?
        ), d AS (
            SELECT s.user_key AS user_key, s.at AS at, 0 AS held FROM s
            UNION ALL
            SELECT h.user_key, h.at, 1 FROM h LEFT JOIN s ON s.user_key = h.user_key WHERE s.at IS NULL
        )
        SELECT d.held, COUNT(*), COALESCE(SUM(CASE
            WHEN d.user_key NOT LIKE 'transaction:%' AND EXISTS (SELECT 1 FROM transactions t
                WHERE t.bundle_id = ? AND t.user_id = d.user_key AND t.environment || '' = ? AND t.group_id = ? AND t.purchase_ms >= d.at) THEN 1
            WHEN d.user_key LIKE 'transaction:%' AND EXISTS (SELECT 1 FROM transactions t
                WHERE t.original_transaction_id = substr(d.user_key, 13) AND t.bundle_id = ? AND t.environment = ? AND t.group_id = ?
                AND t.purchase_ms >= d.at) THEN 1
            ELSE 0 END), 0)
        FROM d WHERE d.at >= ? GROUP BY d.held
        """
}
