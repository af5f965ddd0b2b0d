import Synchronization

/// Lets at most `limit` callers through at once and turns the rest away at once, never
/// queueing them: a burst of expensive requests (integrity walks) cannot pile up threads.
public final class ConcurrencyGate: Sendable {
    public let limit: Int
    private let count = Mutex(0)

    /// Callers inside now.
    public var holders: Int { count.withLock { $0 } }

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` if fewer than `limit` callers are inside; nil, without running it, if not.
    public func ifOpen<T>(_ body: () throws -> T) rethrows -> T? {
        let entered = self.count.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard entered else { return nil }
        defer { self.count.withLock { $0 -= 1 } }
        return try body()
    }
}
