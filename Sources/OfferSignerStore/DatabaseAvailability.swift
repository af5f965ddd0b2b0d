import Synchronization

/// What a database's callers met of its unavailability: how many calls failed for each
/// ``DatabaseUnavailable/Cause`` (for metrics), and when the last one did (for readiness).
/// Each engine records every ``DatabaseUnavailable`` it reports, once.
public final class DatabaseAvailability: Sendable {
    private struct State {
        var counts: [DatabaseUnavailable.Cause: Int] = [:]
        var last: (at: ContinuousClock.Instant, unavailable: DatabaseUnavailable)?
    }

    private let state = Mutex(State())

    /// Nothing met yet.
    public init() {}

    /// Counts `unavailable` and remembers it as the latest.
    func record(_ unavailable: DatabaseUnavailable) {
        state.withLock { state in
            state.counts[unavailable.cause, default: 0] += 1
            state.last = (ContinuousClock.now, unavailable)
        }
    }

    /// Calls that found the database unavailable, by cause, since the process started.
    public var counts: [DatabaseUnavailable.Cause: Int] { state.withLock { $0.counts } }

    /// The last unavailability, if one was met within `window`.
    public func recent(within window: Duration) -> DatabaseUnavailable? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let last = state.last, now - last.at < window else { return nil }
            return last.unavailable
        }
    }
}
