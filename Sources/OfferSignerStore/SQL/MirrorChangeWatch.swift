import Dispatch
import Synchronization

/// How an in-memory mirror of stored rules learns of other processes' changes: where no
/// listener tells it of them, reads check the database themselves, at most once a second,
/// claimed by one caller while the others go on with the mirror as it is; on PostgreSQL a
/// listener (``OfferChangeListener``) does, until ``stop()``.
final class MirrorChangeWatch: Sendable {
    /// Whether reads check at all.
    let checksOnRead: Bool
    /// When the mirror was last checked (`DispatchTime` nanoseconds).
    private let checkedAt = Atomic<UInt64>(0)
    private let listener: Mutex<OfferChangeListener?> = Mutex(nil)

    init(checksOnRead: Bool) {
        self.checksOnRead = checksOnRead
    }

    /// True for the one caller that is to check now.
    func claimCheck() -> Bool {
        guard checksOnRead else { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        let last = checkedAt.load(ordering: .relaxed)
        return now >= last + 1_000_000_000 && checkedAt.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
    }

    /// Keeps `listener` running until ``stop()``.
    func follow(_ listener: OfferChangeListener) {
        self.listener.withLock { $0 = listener }
    }

    /// Stops the listener, if one runs.
    func stop() {
        listener.withLock { listener in
            listener?.stop()
            listener = nil
        }
    }
}
