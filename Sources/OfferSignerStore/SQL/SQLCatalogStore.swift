import Foundation
import OfferSignerCore

/// The catalogs (`appstore_catalogs`), the same on both engines: one row per app, the catalog
/// as a JSON document written whole in one statement, so a reader sees the old catalog or the
/// new one, never a mix.
final class SQLCatalogStore<Database: SQLDatabase>: CatalogStore, Sendable {
    private let database: Database

    init(database: Database) {
        self.database = database
    }

    public func catalog(bundleId: String) throws -> StoredCatalog? {
        let row = try database.withReader { db in
            try db.first("""
                SELECT catalog_json, synced_at_ms, attempted_at_ms, last_error FROM appstore_catalogs WHERE bundle_id = ?
                """, [.text(bundleId)]) { row in
                (json: row.optionalText(0), synced: row.optionalInt64(1), attempted: row.int64(2), error: row.optionalText(3))
            }
        }
        guard let row else { return nil }
        var catalog: AppStoreCatalog?
        if let json = row.json {
            do {
                catalog = try JSONDecoder().decode(AppStoreCatalog.self, from: Data(json.utf8))
            } catch {
                throw UnreadableCatalog(bundleId: bundleId)
            }
        }
        return StoredCatalog(bundleId: bundleId, catalog: catalog, syncedAt: row.synced.map(Date.init(milliseconds:)),
                             attemptedAt: Date(milliseconds: row.attempted), lastError: row.error)
    }

    public func save(_ catalog: AppStoreCatalog, bundleId: String, syncedAt: Date) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(catalog), as: UTF8.self)
        _ = try database.inTransaction { db in
            try db.change("""
                INSERT INTO appstore_catalogs (bundle_id, catalog_json, synced_at_ms, attempted_at_ms, last_error)
                VALUES (?, ?, ?, ?, NULL)
                ON CONFLICT (bundle_id) DO UPDATE SET catalog_json = excluded.catalog_json, synced_at_ms = excluded.synced_at_ms,
                    attempted_at_ms = excluded.attempted_at_ms, last_error = NULL
                """, [.text(bundleId), .text(json), .integer(syncedAt.milliseconds), .integer(syncedAt.milliseconds)])
        }
    }

    public func recordFailure(bundleId: String, at: Date, error: String) throws {
        _ = try database.inTransaction { db in
            try db.change("""
                INSERT INTO appstore_catalogs (bundle_id, catalog_json, synced_at_ms, attempted_at_ms, last_error)
                VALUES (?, NULL, NULL, ?, ?)
                ON CONFLICT (bundle_id) DO UPDATE SET attempted_at_ms = excluded.attempted_at_ms, last_error = excluded.last_error
                """, [.text(bundleId), .integer(at.milliseconds), .text(String(error.prefix(2000)))])
        }
    }
}

/// A stored catalog this build cannot read.
struct UnreadableCatalog: Error, CustomStringConvertible {
    let bundleId: String
    var description: String { "the stored App Store Connect catalog of \(bundleId) is not one this build can read; sync it again" }
}
