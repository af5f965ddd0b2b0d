/// A failed SQLite call, with SQLite's own diagnostics. Bound values are never part of it.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code, e.g. 13 (SQLITE_FULL) or 2067 (SQLITE_CONSTRAINT_UNIQUE).
    public let extendedCode: Int32
    /// `sqlite3_errmsg` at the time of failure.
    public let message: String
    /// The statement that failed, if any.
    public let sql: String?

    /// The primary result code (the low byte of the extended one).
    public var code: Int32 { extendedCode & 0xff }

    /// SQLITE_CONSTRAINT: a row broke a constraint (a unique nonce, say); the file is writable.
    var isConstraintViolation: Bool { code == 19 }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " [\(sql)]" }
        return text
    }
}
