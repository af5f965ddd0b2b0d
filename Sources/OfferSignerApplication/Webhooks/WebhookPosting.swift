import Dispatch
import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The posts of one claim, made on a thread of their own (`webhook-post`) at a lower priority
/// (nice ``niceness``), while the lane's thread, at the process's priority, waits for their
/// tries and records them as they come. The posting thread never holds a database connection
/// (nor any lock signing takes), so signing may take the CPU from it without waiting for it;
/// the lane's thread, which holds the SQLite write connection during its claim and record
/// transactions (the connection the signature log's writer uses), keeps the process's priority
/// and so is never left descheduled inside one by the threads signing keeps busy (no priority
/// inversion). While signing keeps the cores busy the deliveries wait in the outbox (the
/// oldest-undelivered gauge shows it) and go once it leaves CPU over.
final class WebhookPosting: Sendable {
    /// The posting threads' nice value (Linux keeps one per thread; raising it needs no privilege):
    /// 19, the lowest priority, so while signing keeps the cores busy the posts take about 1.5 % of
    /// a busy core's time (CFS weight 15 against a signing thread's 1024; 110 at nice 10) and the
    /// deliveries mostly wait in the outbox until the load leaves CPU over. They still get that
    /// share (nice is a weight, not a stop), so a saturated service goes on delivering, more
    /// slowly; the oldest-undelivered gauge and its alert show the lag.
    static let niceness: Int32 = 19

    private let state = Mutex<(ready: [[DeliveryAttempt]], finished: Bool)>(([], false))
    private let signal = DispatchSemaphore(value: 0)

    private init() {}

    /// Starts `post` on a posting thread; it hands each run of tries to record to the closure it
    /// is given, and the posting ends when it returns.
    static func start(_ post: @escaping @Sendable (_ hand: ([DeliveryAttempt]) -> Void) -> Void) -> WebhookPosting {
        let posting = WebhookPosting()
        NamedThread.start("webhook-post") {
            lowerCurrentThread()
            post { tries in posting.hand(tries) }
            posting.finish()
        }
        return posting
    }

    /// The next run of tries, waiting for it; nil once the posting has ended and every run was taken.
    func next() -> [DeliveryAttempt]? {
        while true {
            let (tries, finished) = state.withLock { state -> ([DeliveryAttempt]?, Bool) in
                state.ready.isEmpty ? (nil, state.finished) : (state.ready.removeFirst(), false)
            }
            if let tries { return tries }
            if finished { return nil }
            signal.wait()
        }
    }

    private func hand(_ tries: [DeliveryAttempt]) {
        state.withLock { $0.ready.append(tries) }
        signal.signal()
    }

    private func finish() {
        state.withLock { $0.finished = true }
        signal.signal()
    }

    /// Sets the calling thread's nice value to ``niceness`` (`who` 0 is the calling thread on
    /// Linux). Best effort: a thread left at the process's value posts as fast as before.
    private static func lowerCurrentThread() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
