import Foundation
import OfferSignerCore
import Synchronization

/// Offer rules in SQLite, mirrored in memory so the signing path never reads the disk for
/// them. The mirror is refreshed when another process (the `offers apply` command) changed
/// the rules, checked at most once a second. Every sign request reads the mirror, so it is
/// a `ReadMostly` and the time of the last check an atomic: readers never queue on a lock.
public final class SQLiteOfferStore: OfferStore, Sendable {
    private let database: SQLiteDatabase
    private let mirror = ReadMostly(Mirror())
    /// When the mirror was last checked against the database (`DispatchTime` nanoseconds).
    private let checkedAt = Atomic<UInt64>(0)

    /// The rules in memory and the newest change they reflect.
    private struct Mirror: Sendable {
        var offers: [OfferKey: StoredOffer] = [:]
        var stamp = SQLOffers.Stamp.none
    }

    public init(database: SQLiteDatabase) throws {
        self.database = database
        try refresh(force: true)
    }

    public func offer(bundleId: String, offerId: String) throws -> StoredOffer? {
        try refresh()
        return mirror.read { $0.offers[OfferKey(bundleId: bundleId, offerId: offerId)] }
    }

    public func offers() throws -> [StoredOffer] {
        try refresh()
        return mirror.read { Array($0.offers.values) }.sorted { OfferKey($0.rule) < OfferKey($1.rule) }
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

    /// Runs `body` in one write transaction, then brings the mirror up to date.
    private func change<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let result = try database.inTransaction(body)
        try refresh(force: true)
        return result
    }

    /// Reloads the mirror when the newest change differs from the one it reflects.
    private func refresh(force: Bool = false) throws {
        let now = DispatchTime.now().uptimeNanoseconds
        let last = checkedAt.load(ordering: .relaxed)
        // One caller a second claims the check; the others go on with the mirror as it is.
        guard force || (now >= last + 1_000_000_000
                        && checkedAt.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged) else { return }
        try database.withReader { db in
            let stamp = try SQLOffers.stamp(db)
            guard force || stamp != mirror.read({ $0.stamp }) else { return }
            let offers = try SQLOffers.offers(db)
            mirror.write { mirror in
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
