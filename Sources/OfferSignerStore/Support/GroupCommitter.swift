import Foundation
import OfferSignerCore
import Synchronization

/// Group commit: callers on many threads hand in items and block; one writer thread takes
/// every item waiting, writes them all in one transaction with one sync, and wakes each
/// caller with its own result. Durability then costs one sync per batch, not per request.
/// The engine is the `commit` closure's: it opens the transaction, writes and commits.
final class GroupCommitter<Item: Sendable, Output: Sendable>: Sendable {
    /// Writes a batch in one transaction and commits it; returns one result per item. An item
    /// may fail alone (its result is a failure); a thrown error (the transaction rolled back)
    /// fails the whole batch. Called on the writer thread only, one batch at a time.
    typealias Commit = @Sendable (_ batch: [Item]) throws -> [Result<Output, any Error>]
    /// Told each batch's outcome on the writer thread, once it is committed (its results) or
    /// rolled back (the error), before its callers wake: observers see batches in order.
    typealias Observer = @Sendable (_ outcome: Result<[Result<Output, any Error>], any Error>) -> Void

    private let commitBatch: Commit
    private let observe: Observer?
    private let queue = PlainMutex(Queue())
    /// Signalled once each time the writer leaves idleness (items arrived, or `close`).
    private let wake = DispatchSemaphore(value: 0)

    /// What the writer has yet to do.
    private struct Queue {
        var pending: [Waiter] = []
        var closed = false
        /// The writer found nothing to do and is waiting on `wake`.
        var writerIdle = false

        /// Marks the writer busy; true when it was idle, so the caller must signal `wake`.
        mutating func rouseWriter() -> Bool {
            defer { writerIdle = false }
            return writerIdle
        }
    }

    /// The writer's next step.
    private enum Step {
        case commit([Waiter])
        case idle
        case stop
    }

    init(name: String, observe: Observer? = nil, commit: @escaping Commit) {
        commitBatch = commit
        self.observe = observe
        NamedThread.start(name) { [self] in run() }
    }

    /// Queues `item` and returns once its batch is committed (or has failed).
    func submit(_ item: Item) -> Result<Output, any Error> {
        let waiter = Waiter(item: item)
        let queued = queue.withLock { queue -> (accepted: Bool, wakeWriter: Bool) in
            guard !queue.closed else { return (false, false) }
            queue.pending.append(waiter)
            return (true, queue.rouseWriter())
        }
        guard queued.accepted else { return .failure(GroupCommitterClosed()) }
        if queued.wakeWriter { wake.signal() }
        waiter.done.wait()
        return waiter.result.withLock { $0! }
    }

    /// Queues every one of `items` at once, so that the writer takes them in the same batch
    /// (one transaction, one commit), and returns once that batch is committed (or has
    /// failed), with one result per item in order.
    func submit(all items: [Item]) -> [Result<Output, any Error>] {
        let waiters = items.map(Waiter.init(item:))
        let queued = queue.withLock { queue -> (accepted: Bool, wakeWriter: Bool) in
            guard !queue.closed else { return (false, false) }
            queue.pending.append(contentsOf: waiters)
            return (true, queue.rouseWriter())
        }
        guard queued.accepted else { return items.map { _ in .failure(GroupCommitterClosed()) } }
        if queued.wakeWriter { wake.signal() }
        return waiters.map { waiter in
            waiter.done.wait()
            return waiter.result.withLock { $0! }
        }
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
        while true {
            let step = queue.withLock { queue -> Step in
                if !queue.pending.isEmpty {
                    let batch = queue.pending
                    queue.pending.removeAll(keepingCapacity: true)
                    return .commit(batch)
                }
                if queue.closed { return .stop }
                queue.writerIdle = true
                return .idle
            }
            switch step {
            case .commit(let batch): commit(batch)
            case .idle: wake.wait()
            case .stop: return
            }
        }
    }

    private func commit(_ batch: [Waiter]) {
        var results: [Result<Output, any Error>]
        do {
            results = try commitBatch(batch.map(\.item))
            observe?(.success(results))
        } catch {
            results = Array(repeating: .failure(error), count: batch.count)
            observe?(.failure(error))
        }
        for (waiter, result) in zip(batch, results) {
            waiter.result.withLock { $0 = result }
            waiter.done.signal()
        }
    }

    /// One caller blocked until its item's batch is committed. The writer sets `result` before
    /// `done.signal()` and the caller reads it after `done.wait()`, so its lock is never
    /// contended: Swift's `Mutex` (an atomic when uncontended, stored inline) costs next to nothing.
    private final class Waiter: Sendable {
        let item: Item
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Output, any Error>?>(nil)
        init(item: Item) { self.item = item }
    }
}

/// The committer no longer takes items (the service is stopping).
struct GroupCommitterClosed: Error, CustomStringConvertible {
    var description: String { "the store is closed" }
}
