internal import CSQLite
import Foundation

/// A SQLite database file in WAL mode with full durability: one writer connection reached
/// only through `write { }`, and a small pool of reader connections for the rest.
public final class SQLiteDatabase: @unchecked Sendable {
    public let path: String
    private let writer: SQLiteConnection
    private let writerLock = NSLock()
    /// Idle reader connections, and how many exist in all (at most `maxReaders`).
    private var idleReaders: [SQLiteConnection] = []
    private var openReaders = 0
    private let readersCondition = NSCondition()
    /// Readers open at once; more callers wait for one, so a burst of requests cannot open a
    /// file descriptor each.
    public let maxReaders: Int

    /// Opens or creates the file and brings its schema up to date.
    /// - Parameter maxPageCount: caps the file's size in pages (to test a full disk).
    public init(path: String, maxPageCount: Int? = nil, maxReaders: Int = 16) throws(SQLiteError) {
        self.path = path
        self.maxReaders = max(1, maxReaders)
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        writer = try SQLiteConnection(path: path, readOnly: false)
        try writer.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        if let maxPageCount {
            _ = try writer.scalar("PRAGMA max_page_count=\(maxPageCount)")
        }
        try SQLiteSchema.migrate(writer)
    }

    /// Runs `body` in one IMMEDIATE transaction on the writer connection; commits if it
    /// returns, rolls back if it throws.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
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

    /// Runs `body` on a reader connection (a consistent snapshot for the duration).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkoutReader()
        defer { checkin(connection) }
        try connection.run("BEGIN")
        defer { try? connection.run("COMMIT") }
        return try body(connection)
    }

    private func checkoutReader() throws(SQLiteError) -> SQLiteConnection {
        readersCondition.lock()
        while idleReaders.isEmpty && openReaders >= maxReaders { readersCondition.wait() }
        if let connection = idleReaders.popLast() {
            readersCondition.unlock()
            return connection
        }
        openReaders += 1
        readersCondition.unlock()
        do {
            return try SQLiteConnection(path: path, readOnly: true)
        } catch {
            readersCondition.lock()
            openReaders -= 1
            readersCondition.signal()
            readersCondition.unlock()
            throw error
        }
    }

    private func checkin(_ connection: SQLiteConnection) {
        readersCondition.lock()
        idleReaders.append(connection)
        readersCondition.signal()
        readersCondition.unlock()
    }
}
