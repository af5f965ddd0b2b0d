import Foundation
import OfferSignerCore
import Synchronization

/// Offer rules, mirrored in memory so the signing path never waits on the database for them
/// (on PostgreSQL, nor fails when it is down: the last rules read stay in force). Every sign
/// request reads the mirror, so it is a `ReadMostly`: readers never queue on a lock. How the
/// mirror follows changes other processes make is the engine's:
///
/// - SQLite: a read checks the database at most once a second (the time of the last check an
///   atomic: one caller a second claims it) and reloads the mirror when `offer_changes` changed
///   (the `offers apply` command writes the same file).
/// - PostgreSQL: a change commits with a `NOTIFY` on ``channel``; every instance's
///   ``OfferChangeListener`` reloads its mirror when one arrives, and checks for changes once a
///   second besides, so a rule changed through one instance is in force on all within about a
///   second even when a notification was missed (a listener reconnecting after a restart).
///   A change takes the offer-change lock, so two instances changing one offer at once make
///   two versions, not one twice.
final class SQLOfferStore<Database: SQLDatabase>: OfferStore, Sendable {
    /// The `LISTEN`/`NOTIFY` channel of offer changes.
    static var channel: String { "offer_signer_offer_changes" }

    private let database: Database
    private let mirror = ReadMostly(Mirror())
    /// How other processes' changes are learnt of.
    private let watch: MirrorChangeWatch

    /// The rules in memory and the state of `offer_changes` they reflect.
    private struct Mirror: Sendable {
        var offers: [OfferKey: StoredOffer] = [:]
        var stamp = ChangeStamp.unread
    }

    fileprivate init(_ database: Database, checksOnRead: Bool) throws {
        self.database = database
        watch = MirrorChangeWatch(checksOnRead: checksOnRead)
        try refresh(force: true)
    }

    deinit {
        close()
    }

    /// Stops following changes.
    public func close() {
        watch.stop()
    }

    public func offer(bundleId: String, offerId: String) throws -> StoredOffer? {
        try checkIfDue()
        return mirror.read { $0.offers[OfferKey(bundleId: bundleId, offerId: offerId)] }
    }

    public func offers() throws -> [StoredOffer] {
        try checkIfDue()
        return mirror.read { Array($0.offers.values) }.sorted { OfferKey($0.rule) < OfferKey($1.rule) }
    }

    public func put(_ rule: OfferRule, by actor: String, at now: Date) throws -> StoredOffer {
        try apply([rule], by: actor, at: now)[0]
    }

    public func apply(_ rules: [OfferRule], by actor: String, at now: Date) throws -> [StoredOffer] {
        try change { db in try Self.apply(rules, db, by: actor, at: now) }
    }

    public func disable(bundleId: String, offerId: String, by actor: String, at now: Date) throws -> StoredOffer? {
        try change { db in try Self.disable(OfferKey(bundleId: bundleId, offerId: offerId), db, by: actor, at: now) }
    }

    public func changes(bundleId: String?, offerId: String?, afterId: Int64, limit: Int) throws -> [OfferChange] {
        try Self.changes(database, bundleId: bundleId, offerId: offerId, afterId: afterId, limit: limit)
    }

    /// Runs `body` in one transaction holding the change lock, announces the change to the
    /// other processes on commit, then brings this process's mirror up to date.
    private func change<T>(_ body: (Database.Connection) throws -> T) throws -> T {
        let result = try database.inTransaction { db in
            try db.lockForChanges(SQLChangeLock.offers)
            let result = try body(db)
            try db.announceChange(on: Self.channel)
            return result
        }
        try refresh(force: true)
        return result
    }

    /// Where reads check for changes themselves: one caller a second claims the check; the
    /// others go on with the mirror as it is.
    private func checkIfDue() throws {
        guard watch.claimCheck() else { return }
        try refresh(force: false)
    }

    /// Reloads the mirror when `offer_changes` differs from what it reflects, or always when
    /// `force`d (a change of this process, or a notification: a change may have committed with
    /// an ID below the newest).
    private func refresh(force: Bool) throws {
        try database.withReader { db in
            let stamp = try ChangeStamp.read(db, table: "offer_changes")
            guard force || stamp != mirror.read({ $0.stamp }) else { return }
            let offers = try Self.offers(db)
            mirror.write { mirror in
                // Changes only grow: a slower refresh must not install an older snapshot.
                guard stamp.count >= mirror.stamp.count else { return }
                mirror.offers = offers
                mirror.stamp = stamp
            }
        }
    }

    /// Creates or replaces `rules` as one change set; call in a transaction.
    private static func apply(_ rules: [OfferRule], _ db: Database.Connection, by actor: String, at now: Date) throws -> [StoredOffer] {
        try rules.map { rule in try change(OfferKey(rule), db, by: actor, at: now) { _ in rule }! }
    }

    /// Disables the offer `key`; nil when there is none. Call in a transaction.
    private static func disable(_ key: OfferKey, _ db: Database.Connection, by actor: String, at now: Date) throws -> StoredOffer? {
        try change(key, db, by: actor, at: now) { existing in
            guard var rule = existing?.rule else { return nil }
            rule.enabled = false
            return rule
        }
    }

    /// Applies `update` to one stored rule, recording the change; nil when `update` returns nil.
    /// The row is found and written by `key`, so a rule never moves to another app.
    private static func change(_ key: OfferKey, _ db: Database.Connection, by actor: String, at now: Date,
                               _ update: (StoredOffer?) -> OfferRule?) throws -> StoredOffer? {
        let existing = try db.first("""
            SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers WHERE bundle_id = ? AND offer_id = ?
            """, [.text(key.bundleId), .text(key.offerId)]) { try RuleCoding.storedOffer($0) }
        guard let rule = update(existing) else { return nil }
        if let existing, existing.rule == rule { return existing }
        let next = StoredOffer(rule: rule, version: (existing?.version ?? 0) + 1, createdAt: existing?.createdAt ?? now, updatedAt: now)
        let json = try RuleCoding.encode(rule)
        try db.change("""
            INSERT INTO offers (bundle_id, offer_id, rule_json, version, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (bundle_id, offer_id) DO UPDATE SET rule_json = excluded.rule_json,
                version = excluded.version, updated_at_ms = excluded.updated_at_ms
            """, [.text(key.bundleId), .text(key.offerId), .text(json), .integer(Int64(next.version)),
                  .integer(next.createdAt.milliseconds), .integer(now.milliseconds)])
        let action = existing == nil ? "create" : (existing!.rule.enabled && !rule.enabled ? "disable" : "update")
        try db.change("""
            INSERT INTO offer_changes (bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(key.bundleId), .text(key.offerId), .integer(Int64(next.version)), .text(action), .text(actor),
                  .integer(now.milliseconds), .optional(try existing.map { try RuleCoding.encode($0.rule) }), .text(json)])
        return next
    }

    /// Every offer, by key.
    private static func offers(_ db: Database.Connection) throws -> [OfferKey: StoredOffer] {
        let rows = try db.select("SELECT rule_json, version, created_at_ms, updated_at_ms FROM offers") { try RuleCoding.storedOffer($0) }
        return Dictionary(rows.map { (OfferKey($0.rule), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// ``OfferStore/changes(bundleId:offerId:afterId:limit:)``, read on the audit lane.
    private static func changes(_ database: Database, bundleId: String?, offerId: String?, afterId: Int64,
                        limit: Int) throws -> [OfferChange] {
        var conditions = SQLConditions()
        conditions.add("id > ?", .integer(afterId))
        conditions.add("bundle_id", equals: bundleId)
        conditions.add("offer_id", equals: offerId)
        let sql = """
            SELECT id, bundle_id, offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json
            FROM offer_changes WHERE \(conditions.sql) ORDER BY id LIMIT ?
            """
        return try database.withReader(.audit) { db in
            try db.select(sql, conditions.values + [.limit(limit)]) { row in
                OfferChange(id: row.int64(0), bundleId: row.text(1), offerId: row.text(2), version: row.int(3), action: row.text(4),
                            apiKeyName: row.text(5), changedAt: Date(milliseconds: row.int64(6)),
                            before: try row.optionalText(7).map(RuleCoding.decode), after: try row.optionalText(8).map(RuleCoding.decode))
            }
        }
    }
}

extension SQLOfferStore where Database == SQLiteDatabase {
    /// Loads the rules; reads check for changes made by other processes once a second.
    convenience init(database: SQLiteDatabase) throws {
        try self.init(database, checksOnRead: true)
    }
}

extension SQLOfferStore where Database == PostgreSQLDatabase {
    /// Loads the rules. With `followChanges`, a listener thread keeps them in step with changes
    /// made through other instances until `close()`.
    convenience init(database: PostgreSQLDatabase, followChanges: Bool = true) throws {
        try self.init(database, checksOnRead: false)
        guard followChanges else { return }
        let listener = OfferChangeListener(database: database, channel: Self.channel) { [weak self] notified in
            try self?.refresh(force: notified)
        }
        watch.follow(listener)
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteOfferStore = SQLOfferStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLOfferStore = SQLOfferStore<PostgreSQLDatabase>
