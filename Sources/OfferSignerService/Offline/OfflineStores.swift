import Foundation
import OfferSignerCore
import OfferSignerStore

/// The stores of a database opened by a command-line tool, beside or instead of a running
/// service (SQLite WAL lets both work on one file).
public final class OfflineStores {
    public let database: SQLiteDatabase
    public let offers: SQLiteOfferStore
    public let signatures: SQLiteSignatureLog
    public let history: SQLiteHistoryStore

    public init(path: String) throws(StartupError) {
        do {
            database = try SQLiteDatabase(path: path)
            offers = try SQLiteOfferStore(database: database)
            signatures = try SQLiteSignatureLog(database: database)
            history = SQLiteHistoryStore(database: database)
        } catch {
            throw .database(path: path, reason: "\(error)")
        }
    }

    deinit {
        signatures.close()
        history.close()
    }
}
