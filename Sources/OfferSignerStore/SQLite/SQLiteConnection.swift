internal import CSQLite
import Foundation

/// One SQLite connection, with its prepared statements cached. Not thread-safe: the
/// `SQLiteDatabase` that owns it hands it to one thread at a time.
final class SQLiteConnection: @unchecked Sendable { // @unchecked: a NOMUTEX sqlite3 handle; the writer's Mutex or the reader Pool lends it to one thread at a time
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements used last, by where their SQL text's bytes are (a literal's never move):
    /// the usual lookup finds its statement there without hashing the text (a history read's
    /// is ~1 KB); a slot is trusted only when its statement's text equals the one asked for.
    /// A text may sit in any of ``recentProbes`` slots from its home slot, so a few hot texts
    /// whose addresses share a home slot do not evict each other on every use (issue 38: with
    /// one slot per text, two of the history read's three statements missed per signature).
    private var recent = [RecentStatement?](repeating: nil, count: SQLiteConnection.recentSlots)
    /// Which of a full run of probed slots the next miss replaces.
    private var nextEviction = 0
    /// Lookups that had to hash the text (``recent`` missed); for tests.
    private(set) var lookupsByText = 0

    /// Slots of ``recent`` (a power of two), and how many from a text's home slot it may take.
    static var recentSlots: Int { 64 }
    static var recentProbes: Int { 4 }

    /// A statement in ``recent``, with where the text it was asked for by lies.
    private struct RecentStatement {
        let address: UInt
        let count: Int
        let statement: SQLiteStatement
    }

    /// SQLite's process-wide settings, made once before its first connection: no memory
    /// statistics (they serialise every allocation of every connection on one mutex). The
    /// result is ignored: once SQLite is initialised it keeps what it has, which is correct.
    private static let processSettings: Void = {
        _ = csqlite_config_no_memory_statistics()
    }()

    /// Opens (and, unless read-only or `creating` is false, creates) the database at `path`.
    init(path: String, readOnly: Bool, creating: Bool = true) throws(SQLiteError) {
        Self.processSettings
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (creating ? SQLITE_OPEN_CREATE : 0))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedCode: status, message: "\(message) (\(path))", sql: nil)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        recent.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    /// The cached prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let place = Self.textPlace(sql)
        if let place {
            var slot = place.home
            for _ in 0..<Self.recentProbes {
                if let entry = recent[slot], entry.address == place.address, entry.count == place.count, entry.statement.sql == sql {
                    entry.statement.reset()
                    return entry.statement
                }
                slot = (slot + 1) & (Self.recentSlots - 1)
            }
        }
        lookupsByText += 1
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            cached.reset()
            statement = cached
        } else {
            var raw: OpaquePointer?
            let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
            guard status == SQLITE_OK, let raw else { throw error(status, sql: sql) }
            statement = SQLiteStatement(takingOwnershipOf: raw, connection: self, sql: sql)
            statements[sql] = statement
        }
        if let place { remember(statement, at: place) }
        return statement
    }

    /// Puts `statement` in the first free slot of its text's probes, else in one of them in turn.
    private func remember(_ statement: SQLiteStatement, at place: (address: UInt, count: Int, home: Int)) {
        var chosen = (place.home + nextEviction) & (Self.recentSlots - 1)
        var slot = place.home
        for _ in 0..<Self.recentProbes {
            if recent[slot] == nil { chosen = slot; break }
            slot = (slot + 1) & (Self.recentSlots - 1)
        }
        nextEviction = (nextEviction + 1) % Self.recentProbes
        recent[chosen] = RecentStatement(address: place.address, count: place.count, statement: statement)
    }

    /// Where `sql`'s UTF-8 bytes are and its home slot in ``recent`` (nil when they are not
    /// contiguous). A text of up to 15 bytes is a small string, whose bytes are copied onto the
    /// stack for the call (their address says nothing): it is placed by its bytes instead, with
    /// address 0 (issue 38: `BEGIN` and `COMMIT` missed their slots on every read). Only a hint:
    /// a hit is confirmed by comparing the texts.
    static func textPlace(_ sql: String) -> (address: UInt, count: Int, home: Int)? {
        sql.utf8.withContiguousStorageIfAvailable { bytes in
            let mask = recentSlots - 1
            guard bytes.count > 15 else {
                var hash: UInt = 0
                for byte in bytes { hash = hash &* 31 &+ UInt(byte) }
                return (0, bytes.count, Int(truncatingIfNeeded: hash ^ (hash >> 6)) & mask)
            }
            let address = UInt(bitPattern: bytes.baseAddress)
            return (address, bytes.count, Int(truncatingIfNeeded: (address >> 4) &+ UInt(bitPattern: bytes.count)) & mask)
        }
    }

    /// Runs `sql` with `values` bound and no rows expected.
    func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) {
        let statement = try statement(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs `sql` with `values` bound and maps every row.
    func query<T>(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteRow) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(values)
        var rows: [T] = []
        while try statement.step() {
            rows.append(try row(SQLiteRow(statement: statement)))
        }
        return rows
    }

    /// The first column of the first row as an integer, or nil if there is no row.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int64? {
        let statement = try statement(sql)
        try statement.bind(values)
        guard try statement.step() else { return nil }
        let value = SQLiteRow(statement: statement).int64(0)
        statement.reset()
        return value
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    func error(_ status: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        return SQLiteError(extendedCode: extended != 0 ? extended : status,
                           message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    var raw: OpaquePointer { handle }
}

extension SQLiteConnection: SQLConnection {
    @discardableResult
    func change(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try run(sql, values)
        return changes
    }

    func select<T>(_ sql: String, _ values: [SQLValue], row: (SQLiteRow) throws -> T) throws -> [T] {
        try query(sql, values) { try row($0) }
    }

    /// SQLite has one writer connection, reached through a mutex: changes are serial already.
    func lockForChanges(_ key: Int64) {}

    func announceChange(on channel: String) {}

    func isOne(of column: String) -> String { "\(column) IN (SELECT value FROM json_each(?))" }
}
