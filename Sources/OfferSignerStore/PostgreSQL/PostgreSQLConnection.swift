internal import CPostgreSQL
import Foundation

/// One libpq connection in non-blocking mode: connecting and every statement wait on the
/// socket with `poll` up to a deadline, so a server that stopped answering costs a bounded
/// time, never a hang. A connection that timed out or lost its server is broken for good
/// (its pool drops it). Statements with parameters are prepared once per connection.
final class PostgreSQLConnection: @unchecked Sendable { // @unchecked: a PGconn; its pool (or the listener thread that owns it) lends it to one thread at a time
    private let handle: OpaquePointer
    /// Statement names by SQL text (as written: with `?` or `$n` placeholders).
    private var prepared: [String: String] = [:]
    /// Set once the connection timed out or failed: no further use.
    private(set) var isBroken = false
    /// How long one statement (or connecting) may take.
    private(set) var timeout: Duration

    /// Connects to `url` (a libpq URI or `key=value` string) within `timeout`, then sets the
    /// session up: `synchronous_commit` on, whatever the server's default; generic plans for
    /// the prepared statements (each is an index lookup whatever its parameters, and planning
    /// every execution anew cost more CPU than running it); server-side limits matching the
    /// client's so nothing it started outlives it for long.
    init(url: String, applicationName: String, timeout: Duration) throws(PostgreSQLError) {
        self.timeout = timeout
        let deadline = ContinuousClock.now + timeout
        // Defaults first: the URL's own parameters (a later expanded dbname) override them.
        let seconds = max(2, Int(timeout.components.seconds))
        let keywords = ["connect_timeout", "application_name", "dbname"]
        let values = [String(seconds), applicationName, url]
        let connection = Self.withCStrings(keywords) { keywords in
            Self.withCStrings(values) { values in PQconnectStartParams(keywords, values, 1) }
        }
        guard let connection else { throw PostgreSQLError(message: "out of memory starting a connection", connectionLost: true) }
        handle = connection
        try finishConnecting(deadline: deadline)
        guard PQsetnonblocking(handle, 1) == 0 else { throw failure(sql: nil) }
        try execute("""
            SET client_min_messages = warning; SET synchronous_commit = on; SET plan_cache_mode = force_generic_plan;
            SET statement_timeout = \(timeout.milliseconds);
            SET lock_timeout = \(timeout.milliseconds); SET idle_in_transaction_session_timeout = \(2 * timeout.milliseconds)
            """)
    }

    deinit { PQfinish(handle) }

    /// Runs `body` with no time limit on statements, client or server side (a migration of a
    /// large database, a copy), then restores the limits.
    func withoutTimeout<T>(_ body: () throws(PostgreSQLError) -> T) throws(PostgreSQLError) -> T {
        let limit = timeout
        try execute("SET statement_timeout = 0; SET lock_timeout = 0; SET idle_in_transaction_session_timeout = 0")
        timeout = .seconds(86_400)
        defer {
            timeout = limit
            try? execute("""
                SET statement_timeout = \(limit.milliseconds); SET lock_timeout = \(limit.milliseconds);
                SET idle_in_transaction_session_timeout = \(2 * limit.milliseconds)
                """)
        }
        return try body()
    }

    /// ``withoutTimeout(_:)`` for a body that throws any error (a copy's).
    func withoutLimits<T>(_ body: () throws -> T) throws -> T {
        var result: Result<T, any Error>?
        try withoutTimeout { () throws(PostgreSQLError) in result = Result { try body() } }
        return try result!.get()
    }

    /// Runs one or more statements without parameters (the simple query protocol).
    func execute(_ sql: String) throws(PostgreSQLError) {
        try send(sql) { PQsendQuery(handle, sql) }
        _ = try results(sql)
    }

    /// Runs `sql` (one statement, parameters `?` or `$1`, `$2`…) with `values` and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [SQLValue] = []) throws(PostgreSQLError) -> PostgreSQLResult {
        let name = try statementName(sql)
        let texts = values.map(\.postgreSQLText)
        try send(sql) {
            Self.withOptionalCStrings(texts) { pointers in
                PQsendQueryPrepared(handle, name, Int32(texts.count), pointers, nil, nil, 0)
            }
        }
        guard let result = try results(sql).last else {
            throw PostgreSQLError(message: "no result", sql: sql)
        }
        return result
    }

    /// The first column of the first row as an integer, or nil if there is no row or it is NULL.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws(PostgreSQLError) -> Int64? {
        let result = try query(sql, values)
        guard result.count > 0, !result[0].isNull(0) else { return nil }
        return result[0].int64(0)
    }

    /// Notifications (`LISTEN`) that arrived, waiting up to `wait` for the first when none has.
    func notifications(waitingUpTo wait: Duration) throws(PostgreSQLError) -> [String] {
        var received = drainNotifications()
        guard received.isEmpty else { return received }
        if try awaitSocket(events: Int16(POLLIN), deadline: ContinuousClock.now + wait) {
            guard PQconsumeInput(handle) == 1 else { throw failure(sql: nil) }
            received = drainNotifications()
        }
        return received
    }

    private func drainNotifications() -> [String] {
        var channels: [String] = []
        while let notification = PQnotifies(handle) {
            channels.append(String(cString: notification.pointee.relname))
            PQfreemem(notification)
        }
        return channels
    }

    /// The name of `sql` prepared on this connection, preparing it (its placeholders numbered)
    /// the first time.
    private func statementName(_ sql: String) throws(PostgreSQLError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        let numbered = SQLPlaceholders.numbered(sql)
        try send(sql) { PQsendPrepare(handle, name, numbered, 0, nil) }
        _ = try results(sql)
        prepared[sql] = name
        return name
    }

    /// Starts a command with `start`, then flushes it to the server within the deadline.
    private func send(_ sql: String, _ start: () -> Int32) throws(PostgreSQLError) {
        guard !isBroken else { throw PostgreSQLError(message: "the connection was lost earlier", sql: sql, connectionLost: true) }
        guard start() == 1 else { throw failure(sql: sql) }
        let deadline = ContinuousClock.now + timeout
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { return }
            guard flushed == 1 else { throw failure(sql: sql) }
            guard try awaitSocket(events: Int16(POLLIN | POLLOUT), deadline: deadline) else { throw timedOut(sql) }
            guard PQconsumeInput(handle) == 1 else { throw failure(sql: sql) }
        }
    }

    /// Every result of the command sent last, waiting for each within the deadline; the
    /// first error among them is thrown (after all are read, so the connection stays usable).
    private func results(_ sql: String) throws(PostgreSQLError) -> [PostgreSQLResult] {
        let deadline = ContinuousClock.now + timeout
        var results: [PostgreSQLResult] = []
        var firstError: PostgreSQLError?
        while true {
            while PQisBusy(handle) == 1 {
                guard try awaitSocket(events: Int16(POLLIN), deadline: deadline) else { throw timedOut(sql) }
                guard PQconsumeInput(handle) == 1 else { throw failure(sql: sql) }
            }
            guard let raw = PQgetResult(handle) else { break }
            let result = PostgreSQLResult(takingOwnershipOf: raw)
            switch PQresultStatus(raw) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                results.append(result)
            default:
                if firstError == nil { firstError = error(of: raw, sql: sql) }
            }
        }
        if PQstatus(handle) != CONNECTION_OK { isBroken = true }
        if let firstError { throw firstError }
        return results
    }

    /// Drives the non-blocking connect to its end within `deadline`.
    private func finishConnecting(deadline: ContinuousClock.Instant) throws(PostgreSQLError) {
        guard PQstatus(handle) != CONNECTION_BAD else { throw failure(sql: nil) }
        var state = PGRES_POLLING_WRITING
        while true {
            switch state {
            case PGRES_POLLING_OK:
                return
            case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
                let events = state == PGRES_POLLING_READING ? POLLIN : POLLOUT
                guard try awaitSocket(events: Int16(events), deadline: deadline) else { throw timedOut(nil) }
                state = PQconnectPoll(handle)
            default:
                throw failure(sql: nil)
            }
        }
    }

    /// Waits until the socket is ready for `events`; false when the deadline passed first.
    private func awaitSocket(events: Int16, deadline: ContinuousClock.Instant) throws(PostgreSQLError) -> Bool {
        while true {
            let socket = PQsocket(handle)
            guard socket >= 0 else { throw failure(sql: nil) }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining.milliseconds + 1, Int64(Int32.max))))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { throw PostgreSQLError(message: "poll: \(String(cString: strerror(errno)))", connectionLost: true) }
        }
    }

    private func timedOut(_ sql: String?) -> PostgreSQLError {
        isBroken = true
        return PostgreSQLError(message: "no answer from the server within \(timeout.milliseconds) ms", sql: sql, connectionLost: true,
                               timedOut: true)
    }

    /// The connection's last error; marks it broken when the connection itself failed.
    private func failure(sql: String?) -> PostgreSQLError {
        let lost = PQstatus(handle) != CONNECTION_OK
        if lost { isBroken = true }
        let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        return PostgreSQLError(message: message.isEmpty ? "the connection failed" : message, sql: sql, connectionLost: lost)
    }

    private func error(of result: OpaquePointer, sql: String) -> PostgreSQLError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
        let lost = PQstatus(handle) != CONNECTION_OK
        // A server that takes no writes (a standby, a demoted primary) stays so for this
        // connection: its pool drops it, and a new one finds the primary.
        if lost || state == "25006" { isBroken = true }
        return PostgreSQLError(sqlState: state, message: message, sql: sql, connectionLost: lost)
    }

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        withOptionalCStrings(strings, { body($0) })
    }

    /// `strings` as a C array of C strings (NULL for nil, and a NULL terminator), for the call.
    private static func withOptionalCStrings<T>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = strings.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension PostgreSQLConnection: SQLConnection {
    @discardableResult
    func change(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try query(sql, values).affectedRows
    }

    func select<T>(_ sql: String, _ values: [SQLValue], row: (PostgreSQLRow) throws -> T) throws -> [T] {
        try query(sql, values).map { try row($0) }
    }

    /// `pg_advisory_xact_lock`: released when the transaction ends.
    func lockForChanges(_ key: Int64) throws {
        try query("SELECT pg_advisory_xact_lock(?)", [.integer(key)])
    }

    /// `NOTIFY`, delivered when the transaction commits.
    func announceChange(on channel: String) throws {
        try query("SELECT pg_notify(?, '')", [.text(channel)])
    }

    func isOne(of column: String) -> String { "\(column) = ANY(?::text[])" }

    var lockingRowsSkippingLocked: String { "FOR UPDATE SKIP LOCKED" }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
