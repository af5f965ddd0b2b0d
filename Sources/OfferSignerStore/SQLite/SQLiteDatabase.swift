internal import CSQLite
import Foundation
import Synchronization

/// A SQLite database file in WAL mode with full durability: one writer connection reached
/// only through `write { }`, and two bounded pools of reader connections, so that long audit
/// scans never hold the connections signing needs.
public final class SQLiteDatabase: Sendable {
    public let path: String
    /// The calls that found the database unavailable, by cause (SQLite reports none: its
    /// failures are the file's, see ``SQLiteError``).
    public let availability = DatabaseAvailability()
    /// What the writer has done: WAL frames, checkpoints, the signature log's batches.
    public let writerStatistics: WriterStatistics
    /// Runs the WAL's checkpoints on a thread of its own instead of the writer's.
    private let checkpointer: SQLiteCheckpointer
    /// Numbers the writer's commits and makes those committed without their own sync durable
    /// (the signature log's batches), on a thread of its own: the durability frontier.
    let walSyncer: SQLiteWALSyncer
    private let writer: Mutex<SQLiteConnection>
    /// True while the writer connection may not be back at `synchronous=FULL` (a failed restore).
    private let unsyncedWriter = Atomic<Bool>(false)
    private let readers: Pool<SQLiteConnection>
    private let auditReaders: Pool<SQLiteConnection>
    /// Serving readers open at once; more callers wait for one, so a burst of requests cannot
    /// open a file descriptor each.
    public let maxReaders: Int
    /// Readers of the audit lane (integrity walks, listings, exports) open at once.
    public let maxAuditReaders: Int
    /// The page cache of each serving reader, KiB. SQLite's default (2 MiB) let 16 readers
    /// grow the process by 32 MiB under reads with no write between them (the WAL's changes
    /// otherwise reset the caches); a serving read touches a few index and table pages.
    static let servingReaderCacheKiB = 512

    /// Which reader pool a read takes its connection from.
    typealias ReadLane = SQLReadLane

    /// Opens the file (creating it, unless `creating` is false) and brings its schema up to date.
    /// - Parameters:
    ///   - creating: false for tools that must work on an existing database only: a missing
    ///     file is then `SQLiteError` SQLITE_CANTOPEN, and no file or folder is made.
    ///   - maxPageCount: caps the file's size in pages (to test a full disk).
    public convenience init(path: String, creating: Bool = true, maxPageCount: Int? = nil, maxReaders: Int = 16,
                            maxAuditReaders: Int = 4) throws(SQLiteError) {
        try self.init(path: path, creating: creating, maxPageCount: maxPageCount, maxReaders: maxReaders,
                      maxAuditReaders: maxAuditReaders, walSync: SQLiteWALFile.dataSync)
    }

    /// Opens the database as above, its WAL synced by `walSync` for the commits made without
    /// their own sync (a test's: one that blocks, or fails).
    init(path: String, creating: Bool = true, maxPageCount: Int? = nil, maxReaders: Int = 16,
         maxAuditReaders: Int = 4, walSync: @escaping SQLiteWALFile.Sync) throws(SQLiteError) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if creating, !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let writer = try SQLiteConnection(path: path, readOnly: false, creating: creating)
        try writer.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        if let maxPageCount {
            _ = try writer.scalar("PRAGMA max_page_count=\(maxPageCount)")
        }
        try SQLiteSchema.migrate(writer)
        let statistics = WriterStatistics()
        writerStatistics = statistics
        checkpointer = SQLiteCheckpointer(path: path, statistics: statistics)
        checkpointer.install(on: writer)
        walSyncer = SQLiteWALSyncer(file: SQLiteWALFile(databasePath: path, sync: walSync))
        self.writer = Mutex(writer)
        readers = Pool(capacity: maxReaders) {
            let reader = try SQLiteConnection(path: path, readOnly: true)
            try reader.execute("PRAGMA cache_size = -\(Self.servingReaderCacheKiB)")
            return reader
        }
        auditReaders = Pool(capacity: maxAuditReaders) { try SQLiteConnection(path: path, readOnly: true) }
        self.maxReaders = readers.capacity
        self.maxAuditReaders = auditReaders.capacity
    }

    deinit {
        writer.withLock { checkpointer.uninstall(from: $0) }
        checkpointer.stop()
        walSyncer.stop()
    }

    /// Runs `body` in one IMMEDIATE transaction on the writer connection; commits if it
    /// returns, rolls back if it throws. The commit is durable (`synchronous=FULL`) unless
    /// `syncingCommit` is false: then it is committed without a sync of its own
    /// (`synchronous=NORMAL`, set before the transaction: SQLite refuses it inside one) and the
    /// connection is set back to FULL before anyone else may use it. In WAL mode the next FULL
    /// commit syncs the WAL file, with the earlier commit's frames in it. Refused once a sync of
    /// the WAL failed (``SQLiteWALSyncer``): nothing written after it could be trusted durable.
    func write<T>(syncingCommit: Bool = true, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try numberedWrite(syncingCommit: syncingCommit, pipelined: false, body).result
    }

    /// Runs `body` in one transaction on the writer connection committed without a sync of its
    /// own, and returns as soon as it is committed, with when it will be durable: the WAL's
    /// syncer syncs it (with every other commit made meanwhile) while the writer goes on. For
    /// the signature log's batches: their callers are answered only once it is durable.
    func writeDurableLater<T>(_ body: (SQLiteConnection) throws -> T) throws -> (result: T, durability: PendingDurability) {
        let written = try numberedWrite(syncingCommit: false, pipelined: true, body)
        let syncer = walSyncer, commit = written.commit
        return (written.result, PendingDurability(whenDurable: { then in syncer.whenDurable(commit, then) },
                                                  beforeNextBatch: { syncer.awaitSyncBegun(commit) }))
    }

    /// ``write(syncingCommit:_:)`` that returns only once every commit made without its own
    /// sync before it began (every signature batch it could read) is durable: what it read is
    /// about to leave the process (a webhook claim's `offer.signed` rows). Its own commit need
    /// not be durable.
    func writeReadingDurable<T>(syncingCommit: Bool, _ body: (SQLiteConnection) throws -> T) throws -> T {
        let written = try numberedWrite(syncingCommit: syncingCommit, pipelined: false, body)
        try walSyncer.awaitDurable(written.pipelinedBefore)
        return written.result
    }

    /// The writer's transaction, numbered in the durability frontier once committed
    /// (`pipelinedBefore`: the last commit made without its own sync before this one).
    private func numberedWrite<T>(syncingCommit: Bool, pipelined: Bool,
                                  _ body: (SQLiteConnection) throws -> T) throws -> (result: T, commit: UInt64, pipelinedBefore: UInt64) {
        try writer.withLock { writer in
            if let failure = walSyncer.failure { throw failure }
            if syncingCommit {
                // Only after a failed restore (below): never a durable transaction on a connection that is not FULL.
                if unsyncedWriter.load(ordering: .acquiring) { try restoreFullSync(writer) }
            } else {
                try writer.run("PRAGMA synchronous=NORMAL")
            }
            defer { if !syncingCommit { try? restoreFullSync(writer) } }
            let pipelinedBefore = walSyncer.lastPipelinedCommit
            let walCommits = checkpointer.walCommits
            try writer.run("BEGIN IMMEDIATE")
            do {
                let result = try body(writer)
                try writer.run("COMMIT")
                // A FULL commit that wrote frames had SQLite sync the WAL before COMMIT returned (its WAL hook ran).
                let synced = syncingCommit && checkpointer.walCommits != walCommits
                return (result, walSyncer.committed(synced: synced, pipelined: pipelined), pipelinedBefore)
            } catch {
                try? writer.run("ROLLBACK")
                // SQLite's own sync of the WAL failed: no later sync proves the earlier unsynced commits written either.
                if let failure = error as? SQLiteError, failure.extendedCode == SQLiteWALSyncer.ioErrorFsync {
                    walSyncer.syncFailed("SQLite's sync in a commit: \(failure.message)")
                }
                throw error
            }
        }
    }

    /// Sets the writer connection back to `synchronous=FULL` after a transaction committed
    /// without its own sync. SQLite refuses the change only inside a transaction (one whose
    /// rollback failed): it is rolled back and tried again; if that fails too, every durable
    /// transaction tries again first and fails until it succeeds.
    private func restoreFullSync(_ writer: SQLiteConnection) throws {
        do {
            try writer.run("PRAGMA synchronous=FULL")
        } catch {
            unsyncedWriter.store(true, ordering: .releasing)
            try? writer.run("ROLLBACK")
            try writer.run("PRAGMA synchronous=FULL")
        }
        unsyncedWriter.store(false, ordering: .releasing)
    }

    /// Runs `body` on a reader connection of `lane` (a consistent snapshot for the duration).
    func read<T>(_ lane: ReadLane = .serving, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try (lane == .serving ? readers : auditReaders).use { connection in
            try connection.run("BEGIN")
            defer { try? connection.run("COMMIT") }
            return try body(connection)
        }
    }
}

extension SQLiteDatabase: SQLDatabase {
    func withReader<T>(_ lane: SQLReadLane, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try read(lane) { try body($0) }
    }

    /// A read is a snapshot already.
    func withSnapshot<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try read(.audit) { try body($0) }
    }

    func inTransaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try write { try body($0) }
    }

    /// In this process, a commit not synced by itself is lost only in a crash of the machine, which
    /// ends this process too: ``CommitSync/withProcess`` and ``CommitSync/deferred`` are one here.
    func inTransaction<T>(syncing: CommitSync, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try write(syncingCommit: syncing == .durable) { try body($0) }
    }

    /// Waits for the WAL's syncer when a signature batch it could read is not durable yet.
    func inTransactionReadingDurable<T>(syncing: CommitSync, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try writeReadingDurable(syncingCommit: syncing == .durable) { try body($0) }
    }

    /// Committed without its own sync; the WAL's syncer makes it durable after.
    func inTransactionDurableLater<T>(_ body: (SQLiteConnection) throws -> T) throws -> (result: T, durability: PendingDurability) {
        try writeDurableLater { try body($0) }
    }

    /// After a failed sync of the WAL nothing can be recorded until a restart.
    func appendRefusal() -> String? {
        walSyncer.failure?.message
    }

    var statementsAreRoundTrips: Bool { false }
}
