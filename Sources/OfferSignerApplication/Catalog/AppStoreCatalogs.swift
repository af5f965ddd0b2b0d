import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization

/// The catalogs as the use cases read them: from the store, each kept a few seconds in memory
/// so signing does not read and decode it on every request (another instance's sync is seen
/// within that time), and whether one is fresh: synced completely within two sync intervals.
public final class AppStoreCatalogs: Sendable {
    /// How long after its last complete sync a catalog may refuse signatures (two intervals).
    public let freshFor: TimeInterval
    private let store: (any CatalogStore)?
    private let clock: WallClock
    private let cacheFor: Duration
    private let cache = Mutex<[String: (entry: StoredCatalog?, read: ContinuousClock.Instant)]>([:])

    /// - Parameter syncInterval: seconds between scheduled syncs; nil (none scheduled) counts as an hour.
    public init(store: (any CatalogStore)?, syncInterval: Int?, clock: WallClock, cacheFor: Duration = .seconds(5)) {
        self.store = store
        self.clock = clock
        self.cacheFor = cacheFor
        freshFor = 2 * TimeInterval(syncInterval ?? 3600)
    }

    /// The app's stored catalog, read now (nil: never synced, or no store).
    public func stored(bundleId: String) throws -> StoredCatalog? {
        let entry = try store?.catalog(bundleId: bundleId)
        cache.withLock { $0[bundleId] = (entry, .now) }
        return entry
    }

    /// The app's catalog as last read (at most a few seconds ago); nil when there is none or it
    /// cannot be read (a catalog never blocks what it only checks).
    public func cached(bundleId: String) -> StoredCatalog? {
        if let hit = cache.withLock({ $0[bundleId] }), ContinuousClock.now - hit.read < cacheFor { return hit.entry }
        return try? stored(bundleId: bundleId)
    }

    /// The app's catalog when it is fresh: synced completely within ``freshFor`` of now.
    public func fresh(bundleId: String) -> AppStoreCatalog? {
        guard let entry = cached(bundleId: bundleId), let catalog = entry.catalog, let syncedAt = entry.syncedAt,
              clock.now.timeIntervalSince(syncedAt) <= freshFor else { return nil }
        return catalog
    }

    /// Whether `syncedAt` is fresh now.
    public func isFresh(_ syncedAt: Date?) -> Bool {
        syncedAt.map { clock.now.timeIntervalSince($0) <= freshFor } ?? false
    }

    /// Forgets what is held of the app's catalog, so the next read sees a sync that just ended.
    public func forget(bundleId: String) {
        _ = cache.withLock { $0.removeValue(forKey: bundleId) }
    }
}
