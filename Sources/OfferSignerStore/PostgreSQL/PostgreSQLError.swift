/// A failed PostgreSQL call, with the server's SQLSTATE when it sent one. Bound values are
/// never part of it; the connection URL's password neither.
public struct PostgreSQLError: Error, CustomStringConvertible, Sendable {
    /// The SQLSTATE (`23505` a unique violation, `40P01` a deadlock…); nil when the failure
    /// was the connection's, not a statement's.
    public let sqlState: String?
    /// The server's or libpq's message.
    public let message: String
    /// The statement that failed, if any.
    public let sql: String?
    /// The connection is gone (refused, reset, timed out, the server shut down): nothing more
    /// can be done on it, and whatever it had not committed did not happen.
    public let connectionLost: Bool
    /// The server did not answer in time (it may be unreachable rather than gone): trying again
    /// at once would only wait as long once more.
    public let timedOut: Bool

    init(sqlState: String? = nil, message: String, sql: String? = nil, connectionLost: Bool = false, timedOut: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.timedOut = timedOut
        // Class 08 (connection exception) and 57P0x (the server is shutting down or starting).
        self.connectionLost = connectionLost || sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P0") } == true
    }

    /// A conflict with another transaction (a serialization failure or a deadlock) that the
    /// same transaction, run again, may not meet.
    public var isTransient: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// A unique constraint refused a row.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    public var description: String {
        var text = "PostgreSQL"
        if let sqlState { text += " error \(sqlState)" }
        text += ": \(message)"
        if let sql { text += " [\(sql.split(separator: "\n").first.map(String.init) ?? sql)]" }
        return text
    }
}
