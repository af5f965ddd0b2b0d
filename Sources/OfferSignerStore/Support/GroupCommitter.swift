import Foundation
import OfferSignerCore
import Synchronization

/// Group commit: callers on many threads hand in items and block; one writer thread takes
/// every item waiting, writes them all in one transaction with one sync, and wakes each
/// caller with its own result. Durability then costs one sync per batch, not per request.
/// The engine is the `commit` closure's: it opens the transaction, writes and commits.
///
/// The callers of one batch sleep on that batch's one `DispatchGroup`, which the writer
/// leaves once every result is set: one wake-up call per batch (a futex wake of all its
/// waiters), not one semaphore per caller signalled one by one from the writer's thread,
/// which is the serial stage (issue 38).
///
/// A committer may be pipelined (``init(name:observe:pipelined:)``): its `commit` returns once
/// the batch is committed, with when it will be durable (``PendingDurability``); the writer
/// takes the next batch as soon as that durability is under way (SQLite: its sync has begun), so
/// a commit overlaps the previous batch's sync, and the batch's callers are answered only when it is durable
/// (SQLite: by the WAL's syncer, one sync for every batch committed since its last), or fail
/// together if it cannot be made so. Committed batches are observed in order as before; their
/// callers are answered in commit order.
final class GroupCommitter<Item: Sendable, Output: Sendable>: Sendable {
    /// Writes a batch in one transaction and commits it; returns one result per item. An item
    /// may fail alone (its result is a failure); a thrown error (the transaction rolled back)
    /// fails the whole batch. Called on the writer thread only, one batch at a time.
    typealias Commit = @Sendable (_ batch: [Item]) throws -> [Result<Output, any Error>]
    /// Told each batch's outcome on the writer thread, once it is committed (its results) or
    /// rolled back (the error), before its callers wake: observers see batches in order.
    typealias Observer = @Sendable (_ outcome: Result<[Result<Output, any Error>], any Error>) -> Void
    /// ``Commit`` whose commit may become durable after it returns: the results, and when.
    typealias PipelinedCommit = @Sendable (_ batch: [Item]) throws
        -> (results: [Result<Output, any Error>], durability: PendingDurability)

    private let commitBatch: PipelinedCommit
    private let observe: Observer?
    private let queue = PlainMutex(Queue())
    /// Signalled once each time the writer leaves idleness (items arrived, or `close`).
    private let wake = DispatchSemaphore(value: 0)

    /// What the writer has yet to do.
    private struct Queue {
        /// The items of the next batch, in the order they came.
        var pending: [Item] = []
        /// Where the callers of `pending` wait for their results.
        var batch = Batch()
        var closed = false
        /// The writer found nothing to do and is waiting on `wake`.
        var writerIdle = false

        /// Marks the writer busy; true when it was idle, so the caller must signal `wake`.
        mutating func rouseWriter() -> Bool {
            defer { writerIdle = false }
            return writerIdle
        }

        /// Queues `items`; their results will be `batch`'s at the returned positions.
        mutating func add(_ items: some Collection<Item>) -> (batch: Batch, first: Int) {
            if pending.isEmpty { batch.committed.enter() }  // left once, when the batch is answered
            let first = pending.count
            pending.append(contentsOf: items)
            return (batch, first)
        }
    }

    /// The writer's next step.
    private enum Step {
        case commit([Item], Batch)
        case idle
        case stop
    }

    /// A committer whose batches are durable once `commit` returns.
    convenience init(name: String, observe: Observer? = nil, commit: @escaping Commit) {
        self.init(name: name, observe: observe, pipelined: { batch in (try commit(batch), .now) })
    }

    /// A pipelined committer: a batch's callers wait for its durability, the writer does not.
    init(name: String, observe: Observer? = nil, pipelined commit: @escaping PipelinedCommit) {
        commitBatch = commit
        self.observe = observe
        NamedThread.start(name) { [self] in run() }
    }

    /// Queues `item` and returns once its batch is committed (or has failed).
    func submit(_ item: Item) -> Result<Output, any Error> {
        guard let queued = enqueue(CollectionOfOne(item)) else { return .failure(GroupCommitterClosed()) }
        queued.batch.committed.wait()
        return queued.batch.result(queued.first)
    }

    /// Queues every one of `items` at once, so that the writer takes them in the same batch
    /// (one transaction, one commit), and returns once that batch is committed (or has
    /// failed), with one result per item in order.
    func submit(all items: [Item]) -> [Result<Output, any Error>] {
        guard !items.isEmpty else { return [] }
        guard let queued = enqueue(items) else { return items.map { _ in .failure(GroupCommitterClosed()) } }
        queued.batch.committed.wait()
        return (queued.first..<queued.first + items.count).map(queued.batch.result)
    }

    /// Adds `items` to the next batch and wakes the writer if it was idle; nil once closed.
    private func enqueue(_ items: some Collection<Item>) -> (batch: Batch, first: Int)? {
        let queued = queue.withLock { queue -> (batch: Batch, first: Int, wakeWriter: Bool)? in
            guard !queue.closed else { return nil }
            let (batch, first) = queue.add(items)
            return (batch, first, queue.rouseWriter())
        }
        guard let queued else { return nil }
        if queued.wakeWriter { wake.signal() }
        return (queued.batch, queued.first)
    }

    /// Stops the writer once the items already waiting are written.
    func close() {
        let wakeWriter = queue.withLock { queue in
            queue.closed = true
            return queue.rouseWriter()
        }
        if wakeWriter { wake.signal() }
    }

    private func run() {
        var previous: PendingDurability?
        while true {
            // A pipelined writer keeps at most one batch ahead of its durability (see PendingDurability).
            previous?.beforeNextBatch()
            previous = nil
            let step = queue.withLock { queue -> Step in
                if !queue.pending.isEmpty {
                    let step = Step.commit(queue.pending, queue.batch)
                    queue.pending = []
                    queue.batch = Batch()
                    return step
                }
                if queue.closed { return .stop }
                queue.writerIdle = true
                return .idle
            }
            switch step {
            case .commit(let items, let batch): previous = commit(items, batch)
            case .idle: wake.wait()
            case .stop: return
            }
        }
    }

    /// Commits a batch; its durability, to wait on before the next one, unless it failed.
    private func commit(_ items: [Item], _ batch: Batch) -> PendingDurability? {
        let committed: (results: [Result<Output, any Error>], durability: PendingDurability)
        do {
            committed = try commitBatch(items)
        } catch {
            observe?(.failure(error))
            batch.answer(Array(repeating: .failure(error), count: items.count))
            return nil
        }
        observe?(.success(committed.results))
        let results = committed.results, count = items.count
        // Answered once durable (at once unless pipelined); a batch that cannot be made durable fails as a whole.
        committed.durability.whenDurable { failure in
            batch.answer(failure.map { error in Array(repeating: .failure(error), count: count) } ?? results)
        }
        return committed.durability
    }

    /// The callers of one batch, blocked on `committed` until the writer has set every result
    /// (`answer`). A batch is entered when its first item is queued and left once, so one that
    /// never had an item is never waited on.
    private final class Batch: @unchecked Sendable { // @unchecked: `results` is written once, by the writer, before `committed.leave()`, and read only after `committed.wait()` returned, which orders the write before every read
        let committed = DispatchGroup()
        private var results: [Result<Output, any Error>] = []

        /// Sets the batch's results (one per item, in order) and wakes all its callers at once.
        func answer(_ results: [Result<Output, any Error>]) {
            self.results = results
            committed.leave()
        }

        /// The result of the item queued at `index`; only after `committed.wait()`.
        func result(_ index: Int) -> Result<Output, any Error> {
            index < results.count ? results[index] : .failure(GroupCommitterNoResult())
        }
    }
}

/// The batch's commit gave no result for the item (a writer that returned fewer results than items).
struct GroupCommitterNoResult: Error, CustomStringConvertible {
    var description: String { "the batch's writer gave no result for this item" }
}

/// The committer no longer takes items (the service is stopping).
struct GroupCommitterClosed: Error, CustomStringConvertible {
    var description: String { "the store is closed" }
}
