import Foundation
import OfferSignerCore
import OfferSignerTestSupport
import Testing
@testable import OfferSignerStore

/// The storage engines the contract tests run against.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgreSQL

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

/// A fresh, empty database of one engine for one test: a file in a temporary folder, or a
/// database of its own in the throwaway cluster. `cleanup()` removes it. When the cluster
/// cannot start, making a PostgreSQL one throws, so the test fails rather than passing
/// without having run.
final class EngineDatabase {
    let engine: Engine
    let location: DatabaseLocation
    private let remove: () -> Void
    private let runSQL: (String) throws -> Void
    private let queryText: (String) throws -> String

    init(_ engine: Engine) throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            let temp = TemporaryDatabase()
            location = .sqlite(path: temp.path)
            remove = { temp.cleanup() }
            runSQL = { sql in try SQLiteDatabase(path: temp.path).write { db in try db.execute(sql) } }
            queryText = { sql in
                try SQLiteDatabase(path: temp.path).read { db in try db.select(sql) { row in row.text(0) } }.joined(separator: "\n")
            }
        case .postgreSQL:
            let cluster = try TestPostgreSQLCluster.shared.get()
            let name = try cluster.createDatabase()
            location = .postgreSQL(url: cluster.url(database: name))
            remove = { cluster.dropDatabase(name) }
            runSQL = { sql in try cluster.psql(name, sql) }
            queryText = { sql in try cluster.psql(name, sql).trimmingCharacters(in: .newlines) }
        }
    }

    /// The stores of the database (creating its schema on first open).
    func open(followOfferChanges: Bool = true, webhookSecrets: WebhookSecretSealer? = nil) throws -> Stores {
        try Stores.open(location, followOfferChanges: followOfferChanges, webhookSecrets: webhookSecrets)
    }

    /// The text column of each row `sql` selects, one a line, read behind the stores' back.
    func text(_ sql: String) throws -> String {
        try queryText(sql)
    }

    /// Runs `sql` on the database behind the stores' back (to tamper with it, say).
    func execute(_ sql: String) throws {
        try runSQL(sql)
    }

    func cleanup() {
        remove()
    }
}
