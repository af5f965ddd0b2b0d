import Foundation
import OfferSignerCore
import OfferSignerStore

/// The stores of a database opened by a command-line tool, beside or instead of running
/// services (SQLite WAL, or PostgreSQL, lets both work on one database).
public final class OfflineStores {
    public let stores: Stores
    public var offers: any OfferStore { stores.offers }
    public var signatures: any SignatureLog { stores.signatures }
    public var history: any SubscriptionHistoryStore { stores.history }

    public init(location: DatabaseLocation) throws(StartupError) {
        do {
            stores = try Stores.open(location, followOfferChanges: false)
        } catch {
            throw .database(path: location.description, reason: "\(error)")
        }
    }

    deinit {
        stores.close()
    }
}
