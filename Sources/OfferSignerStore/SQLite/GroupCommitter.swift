import Foundation

/// Group commit: callers on many threads hand in items and block; one writer thread takes
/// every item waiting, writes them all in one transaction with one sync, and wakes each
/// caller with its own result. Durability then costs one sync per batch, not per request.
final class GroupCommitter<Item, Output>: @unchecked Sendable {
    /// Writes a batch inside an open write transaction; returns one result per item. An item
    /// may fail alone (its result is a failure); a thrown error rolls back the whole batch.
    typealias Writer = (_ batch: [Item], _ db: SQLiteConnection) throws -> [Result<Output, any Error>]

    private let database: SQLiteDatabase
    private let writeBatch: Writer
    private let queue = NSCondition()
    private var pending: [Waiter] = []
    private var closed = false

    init(database: SQLiteDatabase, name: String, writeBatch: @escaping Writer) {
        self.database = database
        self.writeBatch = writeBatch
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Queues `item` and returns once its batch is committed (or has failed).
    func submit(_ item: Item) -> Result<Output, any Error> {
        let waiter = Waiter(item: item)
        queue.lock()
        guard !closed else {
            queue.unlock()
            return .failure(GroupCommitterClosed())
        }
        pending.append(waiter)
        queue.signal()
        queue.unlock()
        waiter.done.wait()
        return waiter.result!
    }

    /// Stops the writer once the items already waiting are written.
    func close() {
        queue.lock()
        closed = true
        queue.signal()
        queue.unlock()
    }

    private func run() {
        while true {
            queue.lock()
            while pending.isEmpty && !closed { queue.wait() }
            if pending.isEmpty && closed {
                queue.unlock()
                return
            }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            queue.unlock()
            commit(batch)
        }
    }

    private func commit(_ batch: [Waiter]) {
        var results: [Result<Output, any Error>]
        do {
            results = try database.write { db in try writeBatch(batch.map(\.item), db) }
        } catch {
            results = Array(repeating: .failure(error), count: batch.count)
        }
        for (waiter, result) in zip(batch, results) {
            waiter.result = result
            waiter.done.signal()
        }
    }

    private final class Waiter: @unchecked Sendable {
        let item: Item
        let done = DispatchSemaphore(value: 0)
        var result: Result<Output, any Error>?
        init(item: Item) { self.item = item }
    }
}

/// The committer no longer takes items (the service is stopping).
struct GroupCommitterClosed: Error, CustomStringConvertible {
    var description: String { "the store is closed" }
}
