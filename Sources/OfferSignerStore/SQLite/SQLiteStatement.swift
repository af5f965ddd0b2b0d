internal import CSQLite
import Foundation

/// A prepared statement owned by its connection's cache.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    let sql: String

    init(takingOwnershipOf handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Parameters that may still hold a value bound before the last ``reset()``: 0 after
    /// they were cleared, else the count of the last ``bind(_:)``'s values (or more).
    private var possiblyBound: Int32 = 0
    /// ``reset()`` ran since the last ``bind(_:)``: parameters not bound again read as NULL.
    private var bindingsStale = false

    /// Ready to run again; every parameter reads as NULL until bound. The clearing itself is
    /// left to the next ``bind(_:)`` or ``step()`` and done only where a value could remain
    /// (issue 38: `sqlite3_clear_bindings` per execution, though a statement binds the same
    /// parameters each time).
    func reset() {
        sqlite3_reset(handle)
        bindingsStale = possiblyBound > 0
    }

    /// Binds `values` to parameters 1…`values.count`; any parameter beyond them reads as NULL.
    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        let count = Int32(values.count)
        if bindingsStale, possiblyBound > count {
            sqlite3_clear_bindings(handle)
        }
        bindingsStale = false
        possiblyBound = count
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                // `withCString` lends a native string's own bytes (NUL-terminated already);
                // passing `text` as the argument made a C copy of it on the heap per bind.
                status = text.withCString { sqlite3_bind_text(handle, index, $0, -1, csqlite_transient()) }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            case .textArray, .integerArray:
                status = sqlite3_bind_text(handle, index, value.jsonArray ?? "[]", -1, csqlite_transient())
            }
            guard status == SQLITE_OK else { throw connection.error(status, sql: sql) }
        }
    }

    /// Advances; true while a row is available. Resets the statement when done or failed.
    func step() throws(SQLiteError) -> Bool {
        if bindingsStale {  // reset without a bind since: what the last run bound reads as NULL
            sqlite3_clear_bindings(handle)
            bindingsStale = false
            possiblyBound = 0
        }
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let error = connection.error(status, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    var raw: OpaquePointer { handle }
}

/// The current row of a statement.
struct SQLiteRow: StoreRow {
    let statement: SQLiteStatement

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement.raw, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement.raw, column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement.raw, column) else { return "" }
        return String(cString: pointer)
    }

    /// Compared with the column's bytes up to its first NUL, as `String(cString:)` reads them
    /// (`text`): equal bytes make equal texts, and `value`, valid UTF-8, is never the repaired
    /// text of other bytes.
    func text(_ column: Int32, is value: String) -> Bool {
        guard let pointer = sqlite3_column_text(statement.raw, column) else { return value.isEmpty && !isNull(column) }
        var value = value
        return value.withUTF8 { bytes in
            let count = strlen(pointer)
            return count == bytes.count && (count == 0 || memcmp(pointer, bytes.baseAddress!, count) == 0)
        }
    }

    /// The text of `column` against `other`'s `otherColumn`, byte by byte as SQLite's `BINARY`
    /// collation orders them: negative, zero or positive.
    func compareText(_ column: Int32, with other: SQLiteRow, _ otherColumn: Int32) -> Int {
        let left = sqlite3_column_text(statement.raw, column)
        let leftCount = Int(sqlite3_column_bytes(statement.raw, column))
        let right = sqlite3_column_text(other.statement.raw, otherColumn)
        let rightCount = Int(sqlite3_column_bytes(other.statement.raw, otherColumn))
        let common = min(leftCount, rightCount)
        if common > 0, let left, let right {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return leftCount - rightCount
    }
}
