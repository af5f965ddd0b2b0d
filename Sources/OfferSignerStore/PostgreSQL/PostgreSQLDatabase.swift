import Foundation
import Synchronization

/// A PostgreSQL database reached through libpq: a bounded pool of connections, each made on
/// demand and dropped when it breaks, so the database reconnects by itself once the server
/// is back. Every wait (connecting, each statement) is bounded by `timeout`; while the
/// server cannot be reached, callers fail fast instead of each waiting for a connect.
public final class PostgreSQLDatabase: Sendable {
    /// The URL as given, with any password replaced by `***` (for logs and messages).
    public let displayURL: String
    let url: String
    /// How long connecting or one statement may take.
    let timeout: Duration
    private let pool: Pool<PostgreSQLConnection>
    /// Connections of the audit lane: long walks and exports never hold those signing needs.
    private let auditPool: Pool<PostgreSQLConnection>
    /// The calls that found the database unavailable, by cause.
    public let availability = DatabaseAvailability()
    /// The signature log's batches (no WAL figures: the server's WAL is its own).
    public let writerStatistics = WriterStatistics()
    /// Whether the primary has the synchronous standby signing may require.
    let synchronousStandby: SynchronousStandbyCheck

    /// Which pool a read takes its connection from.
    typealias ReadLane = SQLReadLane

    /// Connects, then brings the schema up to date (see ``PostgreSQLSchema``).
    /// - Parameters:
    ///   - url: a `postgresql://` or `postgres://` URI; libpq's parameters and `PG*`
    ///     environment variables apply as libpq documents them.
    ///   - timeout: the longest one statement, or connecting, may take.
    ///   - maxConnections: connections open at once from this process for serving (and as
    ///     many as 4 more for audits).
    ///   - creating: false for tools that must work on an existing database only.
    ///   - requireSynchronousStandby: appends to the signature log (and readiness) wait for a
    ///     synchronous standby attached to the primary (``SynchronousStandbyCheck``).
    public init(url: String, timeout: Duration = .seconds(4), maxConnections: Int = 16, creating: Bool = true,
                requireSynchronousStandby: Bool = false) throws(PostgreSQLError) {
        self.url = url
        self.displayURL = DatabaseLocation.redacted(url)
        self.timeout = timeout
        let synchronousStandby = SynchronousStandbyCheck(required: requireSynchronousStandby)
        self.synchronousStandby = synchronousStandby
        let connector = Connector(url: url, timeout: timeout, connected: { synchronousStandby.invalidate() })
        pool = Pool(capacity: maxConnections, makeElement: { try connector.connect() }, isReusable: { !$0.isBroken })
        auditPool = Pool(capacity: 4, makeElement: { try connector.connect() }, isReusable: { !$0.isBroken })
        do {
            try pool.use { connection in
                try PostgreSQLSchema.migrate(connection, creating: creating)
                _ = try synchronousStandby.refusal(connection)
            }
        } catch let error as PostgreSQLError {
            throw error
        } catch {
            throw PostgreSQLError(message: "\(error)")
        }
    }

    /// A connection of its own, outside the pool (for a `LISTEN` that stays open).
    func connect() throws(PostgreSQLError) -> PostgreSQLConnection {
        try PostgreSQLConnection(url: url, applicationName: "offer-signer", timeout: timeout)
    }

    /// Runs `body` on a pooled connection, outside any explicit transaction. A connection that
    /// had been idle in the pool and turns out dead (the server restarted meanwhile) is
    /// replaced and `body` run once more; one that timed out is not (the server is not
    /// answering: a second try would only double the wait). A sign request thus waits at most
    /// two statement deadlines (the batch ahead of its own, then its own), 8 s by default,
    /// within the 10 s request timeout.
    func read<T>(_ lane: ReadLane = .serving, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try reportingUnavailable { try withConnection(lane == .serving ? pool : auditPool) { connection in
            do {
                return try body(connection)
            } catch let error as PostgreSQLError where error.connectionLost && !error.timedOut {
                throw Retry(error: error)
            }
        } }
    }

    /// Runs `body` in one transaction; commits if it returns, rolls back if it throws. When
    /// another transaction's conflict aborts it (a deadlock, a serialization failure) it is
    /// run again, up to three times, so `body` must be safe to repeat. A dead pooled
    /// connection found at `BEGIN` is replaced; a connection lost later is not retried, since
    /// the transaction may or may not have committed: the caller sees the failure
    /// (``DatabaseUnavailable``, as for every lost connection).
    func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try reportingUnavailable { try transaction(body) }
    }

    private func transaction<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        var conflicts = 0
        while true {
            do {
                return try withConnection(pool) { connection in
                    do {
                        try connection.execute("BEGIN")
                    } catch let error as PostgreSQLError where error.connectionLost && !error.timedOut {
                        throw Retry(error: error)
                    }
                    do {
                        let result = try body(connection)
                        try connection.execute("COMMIT")
                        return result
                    } catch let error as PostgreSQLError where error.sqlState == "25006" {
                        // The server takes no writes (a primary demoted since, reached by a pooled
                        // connection): nothing was written, so the transaction runs again on a new
                        // connection, which `target_session_attrs=read-write` takes to the primary.
                        throw Retry(error: error)
                    } catch {
                        if !connection.isBroken { try? connection.execute("ROLLBACK") }
                        throw error
                    }
                }
            } catch let error as PostgreSQLError where error.isTransient && conflicts < 3 {
                conflicts += 1
            }
        }
    }

    /// `body`, a failure that means the database cannot serve the call now (a lost
    /// connection, a statement or lock timeout, a conflict retries did not get past, resources
    /// exhausted: see ``PostgreSQLError/disposition``) reported as ``DatabaseUnavailable``, the
    /// engine-neutral error the service answers with 503, and counted in ``availability``.
    private func reportingUnavailable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgreSQLError {
            guard let unavailable = error.unavailable else { throw error }
            availability.record(unavailable)
            throw unavailable
        }
    }

    /// Why appends to the signature log must wait now, or nil: with a synchronous standby
    /// required, none is attached (the answer is at most a second old). Counted as
    /// unavailability (`no_synchronous_standby`) when it refuses.
    func appendRefusal(_ db: PostgreSQLConnection) throws -> String? {
        guard synchronousStandby.required else { return nil }
        let refusal = try reportingUnavailable { try synchronousStandby.refusal(db) }
        if let refusal {
            availability.record(DatabaseUnavailable(reason: "OFFER_SIGNER_REQUIRE_SYNC_REPLICA is on and \(refusal)",
                                                    cause: .noSynchronousStandby))
        }
        return refusal
    }

    /// Refuses an append (``DatabaseUnavailable``, `no_synchronous_standby`) while signing
    /// requires a synchronous standby and none is attached. Call inside the writer's transaction.
    func requireSynchronousStandby(_ db: PostgreSQLConnection) throws {
        if let refusal = try appendRefusal(db) {
            throw DatabaseUnavailable(reason: "OFFER_SIGNER_REQUIRE_SYNC_REPLICA is on and \(refusal); no signature is issued until one is",
                                      cause: .noSynchronousStandby)
        }
    }

    /// Whether a statement can run now.
    public func isReachable() -> Bool {
        (try? read { connection in try connection.scalar("SELECT 1") }) == 1
    }

    /// The version of the schema in the database (after this process migrated it).
    public func schemaVersion() throws -> Int {
        try read { connection in try PostgreSQLSchema.version(connection) }
    }

    /// `body` with a pooled connection; when it throws `Retry` (its connection was found
    /// dead), it runs once more on another connection made anew: the idle ones
    /// are dropped, as they most likely died with the same server.
    private func withConnection<T>(_ pool: Pool<PostgreSQLConnection>, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        do {
            return try pool.use { connection in try body(connection) }
        } catch is Retry {
            pool.discardIdle()
            do {
                return try pool.use { connection in try body(connection) }
            } catch let retry as Retry {
                throw retry.error
            }
        }
    }

    /// A connection failure `withConnection` may retry on a fresh connection.
    private struct Retry: Error {
        let error: PostgreSQLError
    }

}

extension PostgreSQLDatabase: SQLDatabase {
    func withReader<T>(_ lane: SQLReadLane, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try read(lane) { try body($0) }
    }

    /// A read-only transaction at REPEATABLE READ.
    func withSnapshot<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try read(.audit) { db in
            try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { try? db.execute("COMMIT") }
            return try body(db)
        }
    }

    func inTransaction<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try write { try body($0) }
    }

    /// ``CommitSync/deferred``: `SET LOCAL synchronous_commit = off` (this transaction only: the
    /// server flushes its WAL record with the next synchronous commit's, or within
    /// `wal_writer_delay`). ``CommitSync/withProcess`` stays durable: the server may crash alone.
    func inTransaction<T>(syncing: CommitSync, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try write { db in
            if syncing == .deferred { try db.execute("SET LOCAL synchronous_commit = off") }
            return try body(db)
        }
    }

    var statementsAreRoundTrips: Bool { true }

    func appendRefusal() -> String? {
        guard synchronousStandby.required else { return nil }
        do {
            return try read { db in try appendRefusal(db) }
        } catch {
            return "\(error)"
        }
    }
}

/// Makes the pool's connections, failing at once for a short while after a connect failed,
/// so that while the server is down a burst of callers does not each wait for a connect.
private final class Connector: Sendable {
    let url: String
    let timeout: Duration
    /// Called after each new connection.
    let connected: @Sendable () -> Void
    /// The last failed connect, answered from memory for `failFastWindow`.
    private let lastFailure = Mutex<(at: ContinuousClock.Instant, error: PostgreSQLError)?>(nil)
    private static let failFastWindow: Duration = .milliseconds(200)

    init(url: String, timeout: Duration, connected: @escaping @Sendable () -> Void) {
        self.url = url
        self.timeout = timeout
        self.connected = connected
    }

    func connect() throws(PostgreSQLError) -> PostgreSQLConnection {
        if let recent = lastFailure.withLock({ $0 }), ContinuousClock.now - recent.at < Self.failFastWindow { throw recent.error }
        do {
            let connection = try PostgreSQLConnection(url: url, applicationName: "offer-signer", timeout: timeout)
            lastFailure.withLock { $0 = nil }
            connected()
            return connection
        } catch {
            lastFailure.withLock { $0 = (ContinuousClock.now, error) }
            throw error
        }
    }
}
