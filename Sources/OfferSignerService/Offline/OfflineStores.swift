import Foundation
import OfferSignerCore
import OfferSignerStore

/// The stores of a database opened by a command-line tool, beside or instead of a running
/// service (SQLite WAL lets both work on one file). The database must exist: a mistyped path
/// is refused, never answered from a fresh empty database.
public final class OfflineStores {
    public let database: SQLiteDatabase
    public let offers: SQLiteOfferStore
    public let signatures: SQLiteSignatureLog
    public let history: SQLiteHistoryStore
    public let checkpoints: SQLiteCheckpointStore

    public init(path: String) throws(StartupError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw .databaseMissing(path: path)
        }
        do {
            database = try SQLiteDatabase(path: path, creating: false)
            offers = try SQLiteOfferStore(database: database)
            signatures = try SQLiteSignatureLog(database: database)
            history = SQLiteHistoryStore(database: database)
            checkpoints = SQLiteCheckpointStore(database: database)
        } catch {
            throw .database(path: path, reason: "\(error)")
        }
    }

    deinit {
        signatures.close()
        history.close()
    }
}
