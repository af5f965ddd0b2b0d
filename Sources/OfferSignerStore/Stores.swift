import Foundation

/// The stores of one database, opened together, for whichever engine its location names:
/// what the service and the command-line tools hold, so nothing above the store knows the
/// engine. Opening creates the database's schema or brings it up to date.
public final class Stores: Sendable {
    public let location: DatabaseLocation
    public let offers: any OfferStore
    public let signatures: any RepairableSignatureLog
    public let history: any SubscriptionHistoryStore
    public let checkpoints: any CheckpointStore
    /// The schema version of the database once opened (each engine numbers its own).
    public let schemaVersion: Int
    private let closeAll: @Sendable () -> Void

    private init(location: DatabaseLocation, offers: any OfferStore, signatures: any RepairableSignatureLog,
                 history: any SubscriptionHistoryStore, checkpoints: any CheckpointStore, schemaVersion: Int,
                 close: @escaping @Sendable () -> Void) {
        self.location = location
        self.offers = offers
        self.signatures = signatures
        self.history = history
        self.checkpoints = checkpoints
        self.schemaVersion = schemaVersion
        closeAll = close
    }

    /// Opens the database at `location`.
    /// - Parameters:
    ///   - creating: false for tools that work on an existing database only (a missing SQLite
    ///     file, or a PostgreSQL database without the schema, is refused, nothing created).
    ///   - followOfferChanges: keep the offer rules in step with changes other processes make
    ///     (what `serve` needs; a one-shot command does not).
    public static func open(_ location: DatabaseLocation, creating: Bool = true, followOfferChanges: Bool = true) throws -> Stores {
        switch location {
        case .sqlite(let path):
            let database = try SQLiteDatabase(path: path, creating: creating)
            let signatures = try SQLiteSignatureLog(database: database)
            let history = SQLiteHistoryStore(database: database)
            let version = try database.read { db in try SQLiteSchema.version(db) }
            return Stores(location: location, offers: try SQLiteOfferStore(database: database), signatures: signatures,
                          history: history, checkpoints: SQLiteCheckpointStore(database: database), schemaVersion: version) {
                signatures.close()
                history.close()
            }
        case .postgreSQL(let url):
            let database = try PostgreSQLDatabase(url: url, creating: creating)
            let offers = try PostgreSQLOfferStore(database: database, followChanges: followOfferChanges)
            let signatures = try PostgreSQLSignatureLog(database: database)
            let history = PostgreSQLHistoryStore(database: database)
            return Stores(location: location, offers: offers, signatures: signatures, history: history,
                          checkpoints: PostgreSQLCheckpointStore(database: database), schemaVersion: try database.schemaVersion()) {
                offers.close()
                signatures.close()
                history.close()
            }
        }
    }

    /// Stops the writers once the items already waiting are written, and stops following
    /// offer changes.
    public func close() {
        closeAll()
    }
}
