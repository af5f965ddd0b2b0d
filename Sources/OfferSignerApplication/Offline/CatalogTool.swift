import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer catalog sync [--bundle-id ID]`: the App Store Connect catalog of one app, or
/// of every app with an `appStoreConnect` Team key, read now and stored (as `serve` does
/// every `OFFER_SIGNER_CATALOG_SYNC_INTERVAL`).
public enum CatalogTool {
    /// Syncs and returns each app's result, in bundle ID order.
    ///
    /// - Throws: ``ConfigurationError`` for a bad keys file, ``CatalogSync/Refusal`` for an
    ///   unknown app, and a configuration error of the App Store Connect client.
    public static func sync(settings: ServiceSettings, catalogs store: any CatalogStore, bundleId: String?,
                            logger: Logger = Logger.silent) throws -> [CatalogSyncResult] {
        let configuration = try KeyConfiguration.load(path: settings.keys)
        let catalogs = AppStoreCatalogs(store: store, syncInterval: settings.catalogSyncInterval, clock: .system)
        let sync = CatalogSync(keyRing: KeyRing(configuration), clients: try AppStoreConnectClients(settings: settings), store: store,
                               catalogs: catalogs, clock: .system, logger: logger)
        return try sync.sync(bundleId: bundleId)
    }

    /// The line `catalog sync` prints for a result.
    public static func line(_ result: CatalogSyncResult) -> String {
        switch result.outcome {
        case .synced:
            "synced: \(result.bundleId): \(result.subscriptions ?? 0) subscriptions, \(result.promotionalOffers ?? 0) promotional offers"
        case .failed:
            "failed: \(result.bundleId): \(result.error ?? "unknown error"); "
                + (result.syncedAt.map { "the catalog of \(RFC3339.string(from: $0)) stays" } ?? "no catalog yet")
        }
    }
}
