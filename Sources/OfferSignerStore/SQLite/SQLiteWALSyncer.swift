import Foundation
import OfferSignerCore

/// The durability frontier of a SQLite database's writer connection, and the thread that
/// moves it (`wal-sync`).
///
/// Every commit on the writer connection gets a number, in commit order (``committed(synced:pipelined:)``,
/// called under the writer's lock right after `COMMIT` returned). A commit made without its own
/// sync (`synchronous=NORMAL`: the signature log's batches) is durable once a sync of the WAL
/// file started after it returned has returned: ``whenDurable(_:_:)`` queues what to do then,
/// and this thread syncs the WAL once for every commit made since its last sync (group sync),
/// then runs what waited on them, in commit order. The writer meanwhile commits the next batch.
/// A commit SQLite synced itself (`synchronous=FULL` with frames written) moves the frontier
/// too: its sync covered every earlier frame of the file.
///
/// **A failed sync is final.** After a failed `fdatasync` Linux may have marked the dirty pages
/// clean (their error reported once), so a later sync can succeed without them, and the WAL may
/// hold a hole that ends it at recovery, with every later commit. Everything waiting on that
/// sync, or on any later one, fails, and so does every later write (``failure``) until the
/// process restarts and SQLite recovers the WAL from what the disk holds.
final class SQLiteWALSyncer: Sendable {
    private let file: SQLiteWALFile
    private let state = PlainMutex(State())
    /// Signalled when there is work: a waiter, a frontier moved by a synced commit, `stop`.
    private let wake = DispatchSemaphore(value: 0)
    /// Syncs of the WAL this thread made (for tests and the benchmark).
    private let syncs = PlainMutex(0)

    private struct Waiter {
        let commit: UInt64
        let then: @Sendable ((any Error)?) -> Void
    }

    /// A writer waiting until a sync that covers commit `commit` has begun.
    private struct Starter {
        let commit: UInt64
        let begun: DispatchSemaphore
    }

    private struct State {
        /// Commits made on the writer connection.
        var commits: UInt64 = 0
        /// The number of the last commit made without its own sync.
        var lastPipelined: UInt64 = 0
        /// Every commit up to this number is durable.
        var durable: UInt64 = 0
        /// Why the WAL can no longer be made durable, once a sync failed.
        var failure: SQLiteError?
        /// The commits covered by the last sync begun (every one up to this number).
        var begunThrough: UInt64 = 0
        var waiting: [Waiter] = []
        var starters: [Starter] = []
        var started = false
        var stopped = false

        /// Removes and returns the writers waiting for a sync that covers at most `through`.
        mutating func takeStarters(through: UInt64) -> [Starter] {
            var taken: [Starter] = []
            starters.removeAll { starter in
                guard starter.commit <= through else { return false }
                taken.append(starter)
                return true
            }
            return taken
        }
    }

    init(file: SQLiteWALFile) {
        self.file = file
    }

    /// Stops the thread once what waits is answered.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Why nothing more can be made durable (a failed sync), or nil.
    var failure: SQLiteError? { state.withLock { $0.failure } }

    /// Syncs the thread made so far.
    var syncCount: Int { syncs.withLock { $0 } }

    /// Every commit up to this number is durable.
    var durableThrough: UInt64 { state.withLock { $0.durable } }

    /// The number of the last commit made without its own sync.
    var lastPipelinedCommit: UInt64 { state.withLock { $0.lastPipelined } }

    /// Records a commit of the writer connection (under its lock, right after `COMMIT`
    /// returned) and returns its number. `synced`: SQLite synced the WAL in the commit itself
    /// (`synchronous=FULL`, frames written), so it and every earlier commit are durable.
    /// `pipelined`: committed without its own sync, to be made durable by this thread.
    func committed(synced: Bool, pipelined: Bool) -> UInt64 {
        let (number, wakeThread, begun) = state.withLock { state -> (UInt64, Bool, [Starter]) in
            state.commits += 1
            if pipelined { state.lastPipelined = state.commits }
            guard synced, state.failure == nil else { return (state.commits, false, []) }
            state.durable = state.commits
            return (state.commits, state.waiting.contains { $0.commit <= state.durable }, state.takeStarters(through: state.durable))
        }
        for starter in begun { starter.begun.signal() }
        if wakeThread { wake.signal() }
        return number
    }

    /// A sync of the WAL failed elsewhere (SQLite's own, in a FULL commit on the writer
    /// connection: SQLITE_IOERR_FSYNC): final as this thread's own failure is. (On Linux this
    /// thread's next `fdatasync` would report it too: a writeback error is reported once to
    /// every descriptor open when it happened.)
    func syncFailed(_ detail: String) {
        let begun = state.withLock { state -> [Starter] in
            if state.failure == nil { state.failure = Self.syncFailure(detail) }
            return state.takeStarters(through: .max)
        }
        for starter in begun { starter.begun.signal() }
        wake.signal()
    }

    /// Runs `then` on this thread once commit `commit` is durable (nil), or once it can no
    /// longer be (the failed sync's error). Answers come in commit order.
    func whenDurable(_ commit: UInt64, _ then: @escaping @Sendable ((any Error)?) -> Void) {
        let start = state.withLock { state -> Bool in
            state.waiting.append(Waiter(commit: commit, then: then))
            defer { state.started = true }
            return !state.started
        }
        if start { NamedThread.start("wal-sync") { [self] in run() } }
        wake.signal()
    }

    /// Returns once a sync that makes commit `commit` durable has begun (or it is durable, or a
    /// sync failed). The pipelined writer waits here before it takes its next batch: it runs at
    /// most one batch ahead of the syncs, so its batches stay as large as the sync's cycle
    /// allows (one commit per sync, not several small ones each with its own pages and CPU),
    /// and a batch's commit still overlaps the previous batch's sync.
    func awaitSyncBegun(_ commit: UInt64) {
        let begun = DispatchSemaphore(value: 0)
        let covered = state.withLock { state -> Bool in
            if state.failure != nil || commit <= max(state.durable, state.begunThrough) { return true }
            state.starters.append(Starter(commit: commit, begun: begun))
            return false
        }
        if !covered { begun.wait() }
    }

    /// Returns once commit `commit` is durable; throws the failed sync's error if it cannot be.
    func awaitDurable(_ commit: UInt64) throws {
        let known = state.withLock { state -> Result<Bool, SQLiteError> in
            if let failure = state.failure { return .failure(failure) }
            return .success(commit <= state.durable)
        }
        if try known.get() { return }
        let done = DispatchSemaphore(value: 0)
        let outcome = PlainMutex<(any Error)?>(nil)
        whenDurable(commit) { error in
            outcome.withLock { $0 = error }
            done.signal()
        }
        done.wait()
        if let error = outcome.withLock({ $0 }) { throw error }
    }

    private enum Step {
        case sync(through: UInt64)
        case deliver
        case idle
        case stop
    }

    private func run() {
        while true {
            let step = state.withLock { state -> Step in
                guard !state.waiting.isEmpty else { return state.stopped ? .stop : .idle }
                if state.failure != nil || state.waiting.contains(where: { $0.commit <= state.durable }) { return .deliver }
                // Every commit counted so far has returned, its frames written: one sync covers them all.
                state.begunThrough = state.commits
                return .sync(through: state.commits)
            }
            switch step {
            case .stop: return
            case .idle:
                wake.wait()
                continue
            case .deliver: break
            case .sync(let through):
                for starter in state.withLock({ $0.takeStarters(through: through) }) { starter.begun.signal() }
                let failure = file.syncNow()
                syncs.withLock { $0 += 1 }
                state.withLock { state in
                    if let failure {
                        if state.failure == nil { state.failure = Self.syncFailure(failure) }
                    } else {
                        state.durable = max(state.durable, through)
                    }
                }
                if failure != nil {
                    for starter in state.withLock({ $0.takeStarters(through: .max) }) { starter.begun.signal() }
                }
            }
            deliver()
        }
    }

    /// Answers, in commit order, every waiter whose commit is durable, or all of them once a sync failed.
    private func deliver() {
        let (ready, failure) = state.withLock { state -> ([Waiter], SQLiteError?) in
            let durable = state.durable
            let failure = state.failure
            var ready: [Waiter] = []
            state.waiting.removeAll { waiter in
                guard failure != nil || waiter.commit <= durable else { return false }
                ready.append(waiter)
                return true
            }
            return (ready, failure)
        }
        for waiter in ready.sorted(by: { $0.commit < $1.commit }) { waiter.then(failure) }
    }

    /// What every waiter and later write is told once a sync of the WAL failed with `detail`.
    static func syncFailure(_ detail: String) -> SQLiteError {
        SQLiteError(extendedCode: ioErrorFsync, message: """
            the WAL could not be synced (\(detail)): no commit since the last good sync is durable, nor can a later \
            one be trusted to be; restart the service once the disk is fixed
            """, sql: nil)
    }

    /// SQLITE_IOERR_FSYNC.
    static let ioErrorFsync: Int32 = 10 | (4 << 8)
}
