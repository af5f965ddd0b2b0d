/// Which connections a read takes.
enum SQLReadLane: Sendable {
    /// Requests that serve clients: signing, offers, eligibility, notifications.
    case serving
    /// Audit and administrative reads that may scan the whole log.
    case audit
}

/// What a store written once needs of an engine's database: reads on a connection of a lane,
/// and transactions. Each engine maps its own errors once, here (a lost PostgreSQL connection
/// becomes ``DatabaseUnavailable``), so a store never sees which engine it runs on.
///
/// The stores are generic over it (`SQLHistoryStore<SQLiteDatabase>`), not written against
/// `any SQLDatabase`: each engine's copy of a store is then specialised by the compiler, its
/// statements and row reads calling the engine's connection directly, as hand-written
/// per-engine code did (the existential path cost the signing path about 6 % of its CPU).
protocol SQLDatabase: Sendable {
    /// The engine's connection.
    associatedtype Connection: SQLConnection
    /// Runs `body` on a connection of `lane` (on SQLite, inside one read snapshot).
    func withReader<T>(_ lane: SQLReadLane, _ body: (Connection) throws -> T) throws -> T
    /// Runs `body` on a connection of the audit lane that reads one consistent snapshot of the
    /// whole database throughout.
    func withSnapshot<T>(_ body: (Connection) throws -> T) throws -> T
    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    /// PostgreSQL may run it again after a conflict with another transaction, so `body` must
    /// be safe to repeat.
    func inTransaction<T>(_ body: (Connection) throws -> T) throws -> T
    /// Runs `body` in one transaction whose commit need not be durable by itself (see
    /// ``CommitSync``); ``inTransaction(_:)`` for ``CommitSync/durable``.
    func inTransaction<T>(syncing: CommitSync, _ body: (Connection) throws -> T) throws -> T
    /// ``inTransaction(syncing:_:)`` that returns only once every commit `body` could read is
    /// durable, for a transaction whose reads are about to leave the process (a webhook claim's
    /// rows, posted next). SQLite: waits for the WAL's syncer when a signature batch committed
    /// before it is not synced yet; PostgreSQL: nothing to wait for (a commit is durable before
    /// another session sees it).
    func inTransactionReadingDurable<T>(syncing: CommitSync, _ body: (Connection) throws -> T) throws -> T
    /// Runs `body` in one transaction and returns once it is committed, with when the commit
    /// is durable, which may come later: the group commit's pipeline (``GroupCommitter``)
    /// answers the batch's callers only then and meanwhile commits the next batch. SQLite:
    /// committed without its own sync, the WAL's syncer syncs it; PostgreSQL: durable already.
    func inTransactionDurableLater<T>(_ body: (Connection) throws -> T) throws -> (result: T, durability: PendingDurability)
    /// True when each statement costs a round trip to a server (PostgreSQL), so a read on the
    /// signing path is worth one statement; false where a statement is a call into the process
    /// (SQLite), whose planner prefers several simple indexed lookups.
    var statementsAreRoundTrips: Bool { get }
    /// Every ``DatabaseUnavailable`` the engine reported, counted by cause, the last with its time.
    var availability: DatabaseAvailability { get }
    /// What the writer has done (the signature log's batches; on SQLite its WAL frames too).
    var writerStatistics: WriterStatistics { get }
    /// Why appends to the signature log must wait now (PostgreSQL without the synchronous
    /// standby it was told to require), or nil.
    func appendRefusal() -> String?
}

extension SQLDatabase {
    func appendRefusal() -> String? { nil }

    func inTransactionReadingDurable<T>(syncing: CommitSync, _ body: (Connection) throws -> T) throws -> T {
        try inTransaction(syncing: syncing, body)
    }

    func inTransactionDurableLater<T>(_ body: (Connection) throws -> T) throws -> (result: T, durability: PendingDurability) {
        (try inTransaction(body), .now)
    }
}

/// When a commit made by ``SQLDatabase/inTransactionDurableLater(_:)`` is durable.
struct PendingDurability: Sendable {
    /// Calls its argument once the commit is durable (nil), or once it can no longer be made
    /// durable (the error), on whichever thread learns it; at once when it is durable already.
    let whenDurable: @Sendable (_ then: @escaping @Sendable ((any Error)?) -> Void) -> Void
    /// What a pipelined writer waits for before it takes its next batch (SQLite: until a sync
    /// that covers this commit has begun, so that the writer runs at most one batch ahead of
    /// the syncs); nothing for a commit durable already.
    let beforeNextBatch: @Sendable () -> Void

    /// A commit durable when it returned.
    static let now = PendingDurability(whenDurable: { then in then(nil) }, beforeNextBatch: {})
}

/// When a transaction's commit reaches the disk. Every commit is atomic and in order; only the
/// moment it is durable differs. Commits are durable in the order they were made (SQLite's WAL,
/// PostgreSQL's WAL: a durable commit makes every commit before it durable too), so a commit
/// that is not synced by itself is lost in a crash only together with every commit after it,
/// and never once a later durable commit has returned.
enum CommitSync: Sendable {
    /// Durable when the call returns (SQLite `synchronous=FULL`, PostgreSQL `synchronous_commit`).
    case durable
    /// May be lost in a crash that also ends this process (the machine's), not otherwise: on
    /// SQLite, in this process, committed without a sync of its own (`synchronous=NORMAL`); durable
    /// on PostgreSQL, whose server may crash while this process lives on.
    case withProcess
    /// May be lost in any crash until a later durable commit: SQLite `synchronous=NORMAL`,
    /// PostgreSQL `SET LOCAL synchronous_commit = off`.
    case deferred
}

/// One connection of an ``SQLDatabase``, lent to one thread at a time. Statements are written
/// once with `?` placeholders; an engine that numbers them (PostgreSQL's `$1`) renders them
/// when it prepares the statement, once per connection, and keeps the prepared statement.
protocol SQLConnection: AnyObject {
    /// The engine's row.
    associatedtype Row: StoreRow
    /// Runs one statement with `values` bound to its placeholders; the rows it changed.
    @discardableResult
    func change(_ sql: String, _ values: [SQLValue]) throws -> Int
    /// Runs one statement with `values` bound and maps every row.
    func select<T>(_ sql: String, _ values: [SQLValue], row: (Row) throws -> T) throws -> [T]
    /// Holds the lock `key` until the transaction ends, so changes made by several processes at
    /// once are made one after another (PostgreSQL's advisory lock). Nothing on an engine whose
    /// writer is already serial (SQLite).
    func lockForChanges(_ key: Int64) throws
    /// Tells the other processes on the database, once the transaction commits, that what
    /// `channel` names changed (PostgreSQL's `NOTIFY`). Nothing on SQLite, whose readers look
    /// for changes themselves.
    func announceChange(on channel: String) throws
    /// A condition true when `column` is one of the elements of a ``SQLValue/textArray(_:)``
    /// bound to its one `?`.
    func isOne(of column: String) -> String
    /// What ends a `SELECT` that reserves the rows it reads for the transaction, passing over
    /// rows another transaction holds (PostgreSQL's `FOR UPDATE SKIP LOCKED`); nothing on an
    /// engine whose writer is serial (SQLite).
    var lockingRowsSkippingLocked: String { get }
}

extension SQLConnection {
    var lockingRowsSkippingLocked: String { "" }

    @discardableResult
    func change(_ sql: String) throws -> Int {
        try change(sql, [])
    }

    func select<T>(_ sql: String, row: (Row) throws -> T) throws -> [T] {
        try select(sql, [], row: row)
    }

    /// The first row mapped, or nil when there is none.
    func first<T>(_ sql: String, _ values: [SQLValue] = [], row: (Row) throws -> T) throws -> T? {
        try select(sql, values, row: row).first
    }
}

extension SQLDatabase {
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        try withReader(.serving, body)
    }
}

/// The advisory lock keys of changes that must not interleave across instances (any constant
/// no other application uses).
enum SQLChangeLock {
    static let offers: Int64 = 0x6f66_6665_7273_02
    static let chain: Int64 = 0x6f66_6665_7273_03
    static let rules: Int64 = 0x6f66_6665_7273_04
}
