extension PostgreSQLError {
    /// What a failed call means to the service, decided once here for every SQLSTATE class
    /// the server may send (PostgreSQL's Appendix A).
    enum Disposition: Equatable {
        /// The database cannot serve the call now; it may later (answered 503 with `Retry-After`).
        case unavailable(DatabaseUnavailable.Cause)
        /// A constraint refused a row (class 23): the store decides what it means (a nonce used
        /// twice, a row another instance inserted first).
        case constraint
        /// A fault of this program, of the schema or of the server's data (a syntax error, a
        /// missing table, a privilege revoked, corruption): reported, answered 500.
        case fault
    }

    /// How the service treats this failure.
    var disposition: Disposition {
        if timedOut { return .unavailable(.noAnswer) }
        if connectionLost { return .unavailable(.connectionLost) }
        guard let sqlState, sqlState.count == 5 else { return .fault }
        switch sqlState {
        case "57014": return .unavailable(.statementTimeout)  // query_canceled: statement_timeout, pg_cancel_backend
        case "55P03": return .unavailable(.lockTimeout)       // lock_not_available: lock_timeout, NOWAIT
        case "25006": return .unavailable(.readOnly)          // read_only_sql_transaction: a standby, default_transaction_read_only
        case "25P03": return .unavailable(.statementTimeout)  // idle_in_transaction_session_timeout
        default: break
        }
        switch sqlState.prefix(2) {
        case "08", "57", "3D", "28":
            // Connection exceptions; operator intervention (shutdown, cannot connect now, database
            // dropped, idle session timeout); the database or role refused at connect.
            return .unavailable(.connectionLost)
        case "40":
            // Transaction rollback: serialization failure, deadlock, statement completion unknown.
            return .unavailable(.conflict)
        case "53", "58", "72", "F0":
            // Insufficient resources (disk full, out of memory, too many connections); system
            // errors (I/O); snapshot too old; the server's configuration file.
            return .unavailable(.resources)
        case "23":
            return .constraint
        default:
            // 0A feature not supported, 22 data exception, 42 syntax or access rule, 54 program
            // limit, 55 object not in prerequisite state (but 55P03), P0 a raised exception,
            // XX internal error and data corruption, and every class not listed.
            return .fault
        }
    }

    /// The error as the engine-neutral ``DatabaseUnavailable``, when it is one.
    var unavailable: DatabaseUnavailable? {
        guard case .unavailable(let cause) = disposition else { return nil }
        return DatabaseUnavailable(reason: description, cause: cause)
    }
}
