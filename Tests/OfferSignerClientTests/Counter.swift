import Synchronization

/// A count shared with a client's jitter source: how many waits between attempts began.
final class Counter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}
