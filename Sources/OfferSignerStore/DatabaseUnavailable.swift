/// The database cannot serve the call now (unreachable, restarting, a table locked past the
/// statement deadline, a conflict with other transactions that retries did not get past, out
/// of resources): nothing was written, and the same call may succeed later. Callers answer
/// "unavailable, retry" rather than report an internal failure.
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    /// What the engine said.
    public let reason: String
    /// What kind of unavailability it was (a metric's label).
    public let cause: Cause

    /// Why the database could not serve a call.
    public enum Cause: String, Sendable, CaseIterable, Comparable {
        /// The connection was refused, lost or closed, or the server is shutting down or starting
        /// (SQLSTATE class 08, 57P01–57P05, and a failed connect).
        case connectionLost = "connection_lost"
        /// The server sent nothing back within the client's deadline.
        case noAnswer = "no_answer"
        /// A statement ran past the server's `statement_timeout`, or was cancelled (57014).
        case statementTimeout = "statement_timeout"
        /// A lock was not granted within `lock_timeout` (55P03): another session holds the table
        /// or row.
        case lockTimeout = "lock_timeout"
        /// A serialization failure or deadlock (class 40) still met after the transaction was
        /// run again.
        case conflict
        /// The server is out of disk, memory or connection slots (class 53), or its storage
        /// failed (class 58).
        case resources
        /// The server takes no writes (a standby, or a read-only transaction forced on it: 25006).
        case readOnly = "read_only"
        /// Signing requires a synchronous standby (`OFFER_SIGNER_REQUIRE_SYNC_REPLICA=on`) and the
        /// primary has none attached: a commit would not survive a failover.
        case noSynchronousStandby = "no_synchronous_standby"

        public static func < (lhs: Cause, rhs: Cause) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// - Parameters:
    ///   - reason: what the engine said (never a bound value or a password).
    ///   - cause: what kind of unavailability it is.
    public init(reason: String, cause: Cause = .connectionLost) {
        self.reason = reason
        self.cause = cause
    }

    public var description: String {
        switch cause {
        case .connectionLost, .noAnswer: "the database cannot be reached: \(reason)"
        default: "the database is unavailable (\(cause.rawValue)): \(reason)"
        }
    }
}
