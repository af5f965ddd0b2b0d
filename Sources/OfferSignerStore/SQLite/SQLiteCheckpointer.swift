internal import CSQLite
import Foundation
import OfferSignerCore
import Synchronization

/// Keeps the WAL's checkpoints off the writer's path.
///
/// SQLite's automatic checkpoint (`wal_autocheckpoint`, 1000 frames) runs on the connection
/// that committed: the group-commit writer, so every ~1000 frames one batch also copied the
/// WAL into the database file and synced it while every request of the next batch waited.
/// Here the writer connection's WAL hook, which replaces the automatic checkpoint, only counts
/// the frames each commit appended and, once the WAL holds ``threshold`` frames, wakes a thread
/// of its own (`wal-checkpoint`) that runs the same PASSIVE checkpoint on its own connection
/// (PASSIVE takes no lock a writer or a reader waits for), and again after each further
/// ``threshold`` frames while the WAL has not started again from its beginning. Durability
/// does not depend on it: a commit is durable once its frames are synced to the WAL
/// (`synchronous=FULL`), and a
/// checkpoint only copies committed frames. The WAL stays bounded: should the thread fall
/// behind until the WAL holds ``writerBound`` frames, the writer checkpoints itself, as SQLite's
/// default would have done all along.
final class SQLiteCheckpointer: Sendable {
    /// WAL frames (pages) after which the background checkpoint is asked for: SQLite's default.
    static let threshold = 1000
    /// WAL frames after which the writer checkpoints itself (about 40 MB of 4 KiB pages).
    static let writerBound = 10_000

    let statistics: WriterStatistics
    /// False: the writer checkpoints itself at ``threshold`` frames, as SQLite's automatic
    /// checkpoint does (the thread is not started).
    let inBackground: Bool
    private let path: String
    private let state = PlainMutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// The WAL's size in frames after the writer's last commit (read and written by the writer
    /// thread only, in its hook; atomic so the type stays `Sendable`).
    private let lastFrames = Atomic<Int>(0)
    /// The WAL's size in frames when the writer last asked for a background checkpoint (writer
    /// thread only, like ``lastFrames``).
    private let askedAt = Atomic<Int>(0)
    /// Commits of the writer that appended frames to the WAL (its hook runs after each such
    /// commit, and only then): a `synchronous=FULL` one of them synced the WAL before its
    /// `COMMIT` returned (``SQLiteWALSyncer``'s frontier counts it).
    private let hookedCommits = Atomic<Int>(0)

    private struct State {
        /// A checkpoint is asked for and not yet run.
        var requested = false
        var stopped = false
        /// The checkpoint thread's own connection, opened on its first checkpoint.
        var connection: SQLiteConnection?
    }

    init(path: String, statistics: WriterStatistics, inBackground: Bool = true) {
        self.path = path
        self.statistics = statistics
        self.inBackground = inBackground
        if inBackground { NamedThread.start("wal-checkpoint") { [self] in run() } }
    }

    /// Installs the hook on `writer` (the database's one writer connection): from now on it,
    /// not SQLite's automatic checkpoint, decides when the WAL is checkpointed.
    func install(on writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.raw, { context, db, schema, frames in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
            checkpointer.committed(frames: Int(frames), db: db, schema: schema)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the hook from `writer` (before this checkpointer goes).
    func uninstall(from writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.raw, nil, nil)
    }

    /// How many of the writer's commits appended frames so far (read on the writer's thread).
    var walCommits: Int { hookedCommits.load(ordering: .relaxed) }

    /// Stops the checkpoint thread (its connection is closed).
    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    /// On the writer thread, after a commit that left the WAL `frames` long.
    private func committed(frames: Int, db: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        hookedCommits.add(1, ordering: .relaxed)
        let previous = lastFrames.exchange(frames, ordering: .relaxed)
        statistics.recordWALFrames(frames >= previous ? frames - previous : frames)
        if frames >= (inBackground ? Self.writerBound : Self.threshold) {
            sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            statistics.recordCheckpoint(onWriter: true)
        } else if frames >= Self.threshold {
            // Once per `threshold` frames appended, not after every commit: the WAL only
            // starts again from its beginning when a write begins with every frame copied and
            // no reader still in it, which under a steady load is seldom, so its length stays
            // above the threshold for many commits, and a checkpoint after each (with a sync
            // of the database file each) doubled the syncs (issue 38).
            var asked = askedAt.load(ordering: .relaxed)
            if frames < asked { asked = 0 }  // the WAL started again from its beginning
            // In the last `threshold` frames before the writer's bound, after every commit:
            // the writer's own checkpoint there, which lets the WAL start again, then has only
            // the last batch or two left to copy (~2 ms) instead of up to `threshold` frames
            // (20–50 ms with the next batch waiting).
            guard frames - asked >= Self.threshold || frames >= Self.writerBound - Self.threshold else { return }
            askedAt.store(frames, ordering: .relaxed)
            let ask = state.withLock { state -> Bool in
                defer { state.requested = true }
                return !state.requested
            }
            if ask { wake.signal() }
        }
    }

    /// The checkpoint thread's connection, in WAL mode. SQLite (before 3.41) learns that a
    /// connection's database is in WAL mode only when the connection first reads it: a
    /// checkpoint on a connection that has not read yet does nothing and answers -1 frames,
    /// so one read comes first (issue 38: every background checkpoint before this was such a
    /// no-op, and the writer copied the whole WAL itself at ``writerBound`` frames, 60–100 ms
    /// with the next batch waiting).
    private static func open(_ path: String) -> SQLiteConnection? {
        guard let connection = try? SQLiteConnection(path: path, readOnly: false, creating: false),
              (try? connection.execute("SELECT 1 FROM sqlite_master LIMIT 1")) != nil else { return nil }
        return connection
    }

    private func run() {
        while true {
            wake.wait()
            let connection = state.withLock { state -> SQLiteConnection? in
                if state.stopped { return nil }
                if state.connection == nil {
                    state.connection = Self.open(path)
                }
                return state.connection
            }
            guard let connection else {
                let stopped = state.withLock { state -> Bool in
                    if state.stopped { state.connection = nil } else { state.requested = false }
                    return state.stopped
                }
                if stopped { return }
                continue   // the connection could not be opened: the writer's bound still holds
            }
            // PASSIVE: copies what no reader still needs, waits for nobody; a busy answer
            // (another checkpoint running) leaves the work for the next request.
            var log: Int32 = 0
            let status = sqlite3_wal_checkpoint_v2(connection.raw, nil, SQLITE_CHECKPOINT_PASSIVE, &log, nil)
            // Counted when it ran on the WAL (SQLite answers -1 frames for a connection not in
            // WAL mode: then nothing was copied).
            if status == SQLITE_OK, log >= 0 { statistics.recordCheckpoint(onWriter: false) }
            state.withLock { $0.requested = false }
        }
    }
}
