import Dispatch
import Foundation
import OfferSignerCore
import Synchronization

/// Work `serve` does on its own thread at start and then every `interval` (recovering missed
/// notifications, pruning old retention answers), stopped at shutdown. The work polls
/// ``isStopping`` to end a long round early.
package final class PeriodicTask: Sendable {
    private let name: String
    private let interval: Duration
    private let work: @Sendable (PeriodicTask) -> Void
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    package init(name: String, interval: Duration, work: @escaping @Sendable (PeriodicTask) -> Void) {
        self.name = name
        self.interval = interval
        self.work = work
    }

    /// Whether the task is being stopped.
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Starts the thread; the first round runs at once.
    package func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        NamedThread.start(name) { [self] in
            while !isStopping {
                work(self)
                let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
                _ = wake.wait(timeout: .now() + seconds)
            }
            finished.signal()
        }
    }

    /// Stops the task, letting a round being run finish, and waits for its thread.
    package func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
    }
}
