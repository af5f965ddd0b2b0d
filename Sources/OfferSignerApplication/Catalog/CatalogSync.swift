import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// Reads each app's catalog from App Store Connect and stores it in place of the previous
/// one, only when read completely: a failed sync records its error and keeps the catalog in
/// force. One sync per app runs at a time (a scheduled one and one asked for share the run).
public final class CatalogSync: Sendable {
    private let keyRing: KeyRing
    private let clients: AppStoreConnectClients
    private let store: any CatalogStore
    /// The catalogs this sync stores into (and forgets after each sync).
    let catalogs: AppStoreCatalogs
    private let clock: WallClock
    private let logger: Logger
    private let metrics: Metrics?
    private let limits: CatalogSyncLimits
    private let flight = SingleFlight<CatalogSyncResult, Never>()

    public init(keyRing: KeyRing, clients: AppStoreConnectClients, store: any CatalogStore, catalogs: AppStoreCatalogs, clock: WallClock,
                logger: Logger, metrics: Metrics? = nil, limits: CatalogSyncLimits = CatalogSyncLimits()) {
        self.keyRing = keyRing
        self.clients = clients
        self.store = store
        self.catalogs = catalogs
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.limits = limits
    }

    /// Why a sync was not started.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case unknownApp(String)

        public var description: String {
            switch self {
            case .unknownApp(let bundleId): "no app with bundleId '\(bundleId)' is configured"
            }
        }
    }

    /// The apps a sync covers: those with a Team key, in bundle ID order.
    public var bundleIds: [String] {
        keyRing.current.apps.values.filter { $0.appStoreConnect != nil }.map(\.bundleId).sorted()
    }

    /// Syncs the app `bundleId` names (any configured app: one without a key fails, saying so),
    /// or every app with a Team key, one after another (none when no app has one).
    public func sync(bundleId: String?) throws(Refusal) -> [CatalogSyncResult] {
        if let bundleId {
            guard keyRing.current.apps[bundleId] != nil else { throw .unknownApp(bundleId) }
            return [sync(app: bundleId)]
        }
        return bundleIds.map { sync(app: $0) }
    }

    /// Whether `bundleId` is a configured app.
    func isConfigured(_ bundleId: String) -> Bool { keyRing.current.apps[bundleId] != nil }

    /// The App Store Connect client of the app's Team key (shared by the apps of that key).
    func client(bundleId: String) throws(CatalogSyncError) -> AppStoreConnectClient {
        guard let key = keyRing.current.apps[bundleId]?.appStoreConnect else { throw .noCredentials(bundleId: bundleId) }
        do throws(AppStoreConnectConfigurationError) {
            return try clients.client(for: key)
        } catch {
            throw .appStoreConnect(.invalidArgument(error.description))
        }
    }

    /// Syncs one app.
    public func sync(app bundleId: String) -> CatalogSyncResult {
        flight.run(bundleId) { () -> CatalogSyncResult in run(bundleId) }
    }

    private func run(_ bundleId: String) -> CatalogSyncResult {
        let started = ContinuousClock.now
        let outcome: Result<AppStoreCatalog, CatalogSyncError>
        do throws(CatalogSyncError) {
            let client = try client(bundleId: bundleId)
            let catalog = try AppStoreCatalogReader(client: client, limits: limits).read(bundleId: bundleId, day: Self.day(clock.now))
            do {
                try store.save(catalog, bundleId: bundleId, syncedAt: clock.now)
            } catch {
                throw .store(String(describing: error))
            }
            outcome = .success(catalog)
        } catch {
            outcome = .failure(error)
        }
        catalogs.forget(bundleId: bundleId)
        let seconds = (ContinuousClock.now - started).seconds
        switch outcome {
        case .success(let catalog):
            metrics?.recordCatalogSync(bundleId: bundleId, outcome: "synced")
            logger.log(.info, "App Store Connect catalog synced", [
                "bundleId": .string(bundleId), "subscriptions": .int(catalog.subscriptions.count),
                "promotionalOffers": .int(catalog.promotionalOfferCount), "seconds": .double(seconds),
            ])
            return CatalogSyncResult(bundleId: bundleId, outcome: .synced, syncedAt: try? store.catalog(bundleId: bundleId)?.syncedAt,
                                     subscriptions: catalog.subscriptions.count, promotionalOffers: catalog.promotionalOfferCount,
                                     error: nil)
        case .failure(let error):
            metrics?.recordCatalogSync(bundleId: bundleId, outcome: "failed")
            do {
                try store.recordFailure(bundleId: bundleId, at: clock.now, error: error.description)
            } catch {
                logger.log(.error, "the failed catalog sync could not be recorded", ["bundleId": .string(bundleId),
                                                                                    "error": .string(String(describing: error))])
            }
            logger.log(.warning, "App Store Connect catalog sync failed; the previous catalog stays", [
                "bundleId": .string(bundleId), "error": .string(error.description), "seconds": .double(seconds),
            ])
            return CatalogSyncResult(bundleId: bundleId, outcome: .failed, syncedAt: try? store.catalog(bundleId: bundleId)?.syncedAt,
                                     subscriptions: nil, promotionalOffers: nil, error: error.description)
        }
    }
}

extension CatalogSync {
    /// `YYYY-MM-DD` of `date` in UTC: the day a sync splits regular prices on.
    static func day(_ date: Date) -> String {
        String(RFC3339.string(from: date).prefix(10))
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point value.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
