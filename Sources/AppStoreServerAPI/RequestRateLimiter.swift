import Foundation
import Synchronization

/// Spaces requests evenly, at most `requestsPerSecond` of them in any second, across every
/// thread using one client; and holds them all back while Apple's `Retry-After` asks to.
///
/// Each caller reserves the next free slot under a lock and then sleeps until it, outside the lock.
final class RequestRateLimiter: Sendable {
    private struct State {
        var nextSlot: ContinuousClock.Instant
        var pausedUntil: ContinuousClock.Instant
    }

    /// Why no slot was given.
    struct Paused: Error {
        /// How long until requests may be sent again.
        let remaining: Duration
    }

    private let interval: Duration
    private let clock = ContinuousClock()
    private let state: Mutex<State>

    init(requestsPerSecond: Double) {
        interval = .nanoseconds(Int64((1e9 / requestsPerSecond).rounded(.up)))
        let now = ContinuousClock().now
        state = Mutex(State(nextSlot: now, pausedUntil: now))
    }

    /// Waits for this caller's slot. Throws, taking no slot, when a pause ends further than
    /// `maxPauseWait` from now.
    func acquire(maxPauseWait: Duration) throws(Paused) {
        let now = clock.now
        let slot = try state.withLock { state throws(Paused) -> ContinuousClock.Instant in
            if state.pausedUntil - now > maxPauseWait {
                throw Paused(remaining: state.pausedUntil - now)
            }
            let slot = max(now, state.nextSlot, state.pausedUntil)
            state.nextSlot = slot + interval
            return slot
        }
        let wait = slot - clock.now
        if wait > .zero { Thread.sleep(forTimeInterval: wait.seconds) }
    }

    /// How much longer the pause holds requests back (zero when none is in force).
    var remainingPause: Duration {
        let now = clock.now
        return state.withLock { max(.zero, $0.pausedUntil - now) }
    }

    /// Holds every request back for `duration` from now (a pause already longer is kept).
    func pause(for duration: Duration) {
        let until = clock.now + duration
        state.withLock { state in
            state.pausedUntil = max(state.pausedUntil, until)
        }
    }
}
