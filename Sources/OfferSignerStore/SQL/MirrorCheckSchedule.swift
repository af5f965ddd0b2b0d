import Dispatch
import Synchronization

/// When an in-memory mirror of stored rules checks the database for other processes'
/// changes itself (where no listener tells it of them): at most once a second, claimed by one
/// caller while the others go on with the mirror as it is.
final class MirrorCheckSchedule: Sendable {
    /// Whether reads check at all.
    let checksOnRead: Bool
    /// When the mirror was last checked (`DispatchTime` nanoseconds).
    private let checkedAt = Atomic<UInt64>(0)

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
}
