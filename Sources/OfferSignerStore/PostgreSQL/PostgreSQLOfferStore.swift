import Foundation
import OfferSignerCore
import Synchronization

/// Offer rules in PostgreSQL, mirrored in memory so the signing path never waits on the
/// database for them (nor fails when it is down: the last rules read stay in force). A
/// change commits with a `NOTIFY` on ``channel``; every instance's ``OfferChangeListener``
/// reloads its mirror when one arrives, and checks for changes once a second besides, so a
/// rule changed through one instance is in force on all within about a second even when a
/// notification was missed (a listener reconnecting after a restart).
public final class PostgreSQLOfferStore: OfferStore, Sendable {
    /// The `LISTEN`/`NOTIFY` channel of offer changes.
    static let channel = "offer_signer_offer_changes"

    private let database: PostgreSQLDatabase
    private let mirror = Mutex(Mirror())
    private let listener: Mutex<OfferChangeListener?> = Mutex(nil)

    /// The rules in memory and the state of `offer_changes` they reflect.
    private struct Mirror {
        var offers: [OfferKey: StoredOffer] = [:]
        var stamp = SQLOffers.Stamp.none
    }

    /// Loads the rules. With `followChanges`, a listener thread keeps them in step with
    /// changes made through other instances until `close()`.
    public init(database: PostgreSQLDatabase, followChanges: Bool = true) throws {
        self.database = database
        try refresh(force: true)
        if followChanges {
            let listener = OfferChangeListener(database: database, channel: Self.channel) { [weak self] notified in
                try self?.refresh(force: notified)
            }
            self.listener.withLock { $0 = listener }
        }
    }

    deinit {
        close()
    }

    /// Stops following changes.
    public func close() {
        listener.withLock { listener in
            listener?.stop()
            listener = nil
        }
    }

    public func offer(bundleId: String, offerId: String) throws -> StoredOffer? {
        mirror.withLock { $0.offers[OfferKey(bundleId: bundleId, offerId: offerId)] }
    }

    public func offers() throws -> [StoredOffer] {
        mirror.withLock { Array($0.offers.values) }.sorted { OfferKey($0.rule) < OfferKey($1.rule) }
    }

    public func put(_ rule: OfferRule, by actor: String, at now: Date) throws -> StoredOffer {
        try apply([rule], by: actor, at: now)[0]
    }

    public func apply(_ rules: [OfferRule], by actor: String, at now: Date) throws -> [StoredOffer] {
        try change { db in try SQLOffers.apply(rules, db, by: actor, at: now) }
    }

    public func disable(bundleId: String, offerId: String, by actor: String, at now: Date) throws -> StoredOffer? {
        try change { db in try SQLOffers.disable(OfferKey(bundleId: bundleId, offerId: offerId), db, by: actor, at: now) }
    }

    /// Runs `body` in one transaction holding the change lock (so two instances changing one
    /// offer at once make two versions, not one twice), notifies every listener on commit,
    /// then brings this instance's mirror up to date.
    private func change<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let result = try database.write { db in
            try db.lockForChanges(SQLChangeLock.offers)
            let result = try body(db)
            try db.query("SELECT pg_notify($1, '')", [.text(Self.channel)])
            return result
        }
        try refresh(force: true)
        return result
    }

    /// Reloads the mirror when `offer_changes` differs from what it reflects, or always when
    /// `force`d (a notification: a change may have committed with an ID below the newest).
    private func refresh(force: Bool) throws {
        try database.read { db in
            let stamp = try SQLOffers.stamp(db)
            guard force || stamp != mirror.withLock({ $0.stamp }) else { return }
            let offers = try SQLOffers.offers(db)
            mirror.withLock { mirror in
                // Changes only grow: a slower refresh must not install an older snapshot.
                guard stamp.count >= mirror.stamp.count else { return }
                mirror.offers = offers
                mirror.stamp = stamp
            }
        }
    }

    public func changes(bundleId: String?, offerId: String?, afterId: Int64, limit: Int) throws -> [OfferChange] {
        try SQLOffers.changes(database, bundleId: bundleId, offerId: offerId, afterId: afterId, limit: limit)
    }
}
