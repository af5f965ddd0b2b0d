internal import CSQLite
import Foundation
import Synchronization

/// A SQLite database file in WAL mode with full durability: one writer connection reached
/// only through `write { }`, and a bounded pool of reader connections for the rest.
public final class SQLiteDatabase: Sendable {
    public let path: String
    private let writer: Mutex<SQLiteConnection>
    private let readers: Pool<SQLiteConnection>
    /// Readers open at once; more callers wait for one, so a burst of requests cannot open a
    /// file descriptor each.
    public let maxReaders: Int

    /// Opens or creates the file and brings its schema up to date.
    /// - Parameter maxPageCount: caps the file's size in pages (to test a full disk).
    public init(path: String, maxPageCount: Int? = nil, maxReaders: Int = 16) throws(SQLiteError) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let writer = try SQLiteConnection(path: path, readOnly: false)
        try writer.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        if let maxPageCount {
            _ = try writer.scalar("PRAGMA max_page_count=\(maxPageCount)")
        }
        try SQLiteSchema.migrate(writer)
        self.writer = Mutex(writer)
        readers = Pool(capacity: maxReaders) { try SQLiteConnection(path: path, readOnly: true) }
        self.maxReaders = readers.capacity
    }

    /// Runs `body` in one IMMEDIATE transaction on the writer connection; commits if it
    /// returns, rolls back if it throws.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { writer in
            try writer.run("BEGIN IMMEDIATE")
            do {
                let result = try body(writer)
                try writer.run("COMMIT")
                return result
            } catch {
                try? writer.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs `body` on a reader connection (a consistent snapshot for the duration).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.use { connection in
            try connection.run("BEGIN")
            defer { try? connection.run("COMMIT") }
            return try body(connection)
        }
    }
}
