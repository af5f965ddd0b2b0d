import Foundation

/// `offer-signer db migrate`: brings a database to this build's schema (as `serve` does when it
/// starts), creating it when it does not exist, and says which version it had and has.
public enum DatabaseMigration {
    /// The versions before and after; `latest` is the newest this build knows for the engine.
    public struct Outcome: Sendable, Equatable {
        public var before: Int
        public var after: Int
        public var latest: Int
    }

    /// Migrates the database at `location`; a database newer than this build is refused.
    public static func run(_ location: DatabaseLocation) throws -> Outcome {
        let before = try version(location)
        let stores = try Stores.open(location, followOfferChanges: false)
        defer { stores.close() }
        let latest = switch location {
        case .sqlite: SQLiteSchema.latestVersion
        case .postgreSQL: PostgreSQLSchema.latestVersion
        }
        return Outcome(before: before, after: stores.schemaVersion, latest: latest)
    }

    /// The schema version of the database as it is now; 0 when it does not exist or is empty.
    public static func version(_ location: DatabaseLocation) throws -> Int {
        switch location {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else { return 0 }
            let connection = try SQLiteConnection(path: path, readOnly: true, creating: false)
            let recorded = (try? SQLiteSchema.version(connection)) ?? 0
            return recorded > 0 ? recorded : Int(try connection.scalar("PRAGMA user_version") ?? 0)
        case .postgreSQL(let url):
            let connection = try PostgreSQLConnection(url: url, applicationName: "offer-signer", timeout: .seconds(10))
            guard try connection.scalar("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'schema_migrations' AND schemaname = current_schema()") == 1 else {
                return 0
            }
            return try PostgreSQLSchema.version(connection)
        }
    }
}
