import Dispatch
import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization

/// Counts refused signing requests per day, offer and failed criterion in memory and adds
/// them to the store in one small transaction every few seconds (and before every read and
/// at shutdown), so that a burst of refusals costs no write each and the counts survive a
/// restart. A crash loses at most the last interval's counts; never a signature, which the
/// signature log holds.
public final class OfferActivity: Sendable {
    public let store: any OfferActivityStore
    private let logger: Logger
    private let pending = Mutex<[Key: Int]>([:])
    /// Held for a whole flush, so that a flush before a read returns only after any flush in
    /// flight (the periodic one, holding counts it took from `pending`) has written them.
    private let writing = Mutex(())
    /// Whether the flushing thread runs; signalled by `stop()`.
    private let flushing = Mutex(false)
    private let stopSignal = DispatchSemaphore(value: 0)

    struct Key: Hashable {
        let day: Int64
        let offer: OfferKey
        let criterion: String
    }

    public init(store: any OfferActivityStore, logger: Logger = Logger()) {
        self.store = store
        self.logger = logger
    }

    /// Counts one refused request for `offer` at `date`, with the criteria it failed.
    public func recordRefusal(_ offer: OfferKey, criteria: [String], at date: Date) {
        let day = Self.day(of: date)
        pending.withLock { pending in
            pending[Key(day: day, offer: offer, criterion: RefusalCount.requests), default: 0] += 1
            for criterion in Set(criteria) { pending[Key(day: day, offer: offer, criterion: criterion), default: 0] += 1 }
        }
    }

    /// Writes the counts gathered since the last flush; on failure they stay pending for the next.
    /// Returns only after every count recorded before the call is in the store (or pending again
    /// after a failed write), whichever thread's flush took it.
    public func flush() throws {
        try writing.withLock { _ in
            let batch = pending.withLock { pending in
                defer { pending = [:] }
                return pending
            }
            guard !batch.isEmpty else { return }
            do {
                try store.addRefusals(batch.map { RefusalCount(day: $0.key.day, offer: $0.key.offer, criterion: $0.key.criterion, count: $0.value) })
            } catch {
                pending.withLock { pending in pending.merge(batch, uniquingKeysWith: +) }
                throw error
            }
        }
    }

    /// Flushes every `seconds` on a thread of its own until `stop()`.
    public func startFlushing(every seconds: Double = 2) {
        let started = flushing.withLock { running in
            defer { running = true }
            return !running
        }
        guard started else { return }
        NamedThread.start("activity-flush") { [self] in
            while stopSignal.wait(timeout: .now() + seconds) == .timedOut { flushLogging() }
        }
    }

    /// Stops the periodic flush and writes what is pending.
    public func stop() {
        let wasRunning = flushing.withLock { running in
            defer { running = false }
            return running
        }
        if wasRunning { stopSignal.signal() }
        flushLogging()
    }

    private func flushLogging() {
        do {
            try flush()
        } catch {
            logger.log(.warning, "refusal counts not written yet; will retry", ["reason": .string("\(error)")])
        }
    }

    /// Whole days since 1970-01-01 UTC.
    public static func day(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}
