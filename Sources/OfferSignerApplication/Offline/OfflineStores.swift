import Foundation
import OfferSignerCore
import OfferSignerStore

/// The stores of a database opened by a command-line tool, beside or instead of running
/// services (SQLite WAL, or PostgreSQL, lets both work on one database). The database must
/// exist: a mistyped path is refused, never answered from a fresh empty database, and a
/// PostgreSQL database without the service's schema is refused likewise.
public final class OfflineStores {
    public let stores: Stores
    public var offers: any OfferStore { stores.offers }
    public var signatures: any RepairableSignatureLog { stores.signatures }
    public var history: any SubscriptionHistoryStore { stores.history }
    public var checkpoints: any CheckpointStore { stores.checkpoints }
    public var sync: any AppStoreSyncStore { stores.sync }
    public var consents: any ConsentStore { stores.consents }
    public var outcomes: any OutcomeStore { stores.outcomes }
    public var links: any AppAccountTokenLinkStore { stores.links }
    public var experiments: any ExperimentStore { stores.experiments }
    public var catalogs: any CatalogStore { stores.catalogs }

    public init(location: DatabaseLocation) throws(StartupError) {
        if case .sqlite(let path) = location {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
                throw .databaseMissing(path: path)
            }
        }
        do {
            stores = try Stores.open(location, creating: false, followOfferChanges: false)
        } catch {
            throw .database(path: location.description, reason: "\(error)")
        }
    }

    /// The SQLite database at `path`.
    public convenience init(path: String) throws(StartupError) {
        try self.init(location: .sqlite(path: path))
    }

    deinit {
        stores.close()
    }
}
