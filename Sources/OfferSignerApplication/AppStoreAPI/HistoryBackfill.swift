import AppStoreServerAPI
import Dispatch
import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization

/// `offer-signer appstore backfill`: the history of every customer named by a list of
/// transaction IDs, fetched from the App Store Server API by concurrent workers (held to the
/// clients' request rate), verified like notifications and stored.
///
/// Resumable: the IDs a run is done with are recorded in the database (`appstore_backfill`),
/// after the history they brought is stored, so a rerun, or a run after an interruption, skips
/// them. So are the other transaction IDs of each fetched history, which need no fetch of their
/// own. An ID that failed is not recorded and is tried again by the next run.
package struct HistoryBackfill {
    let sync: CustomerHistorySync
    let progressStore: any AppStoreSyncStore
    let bundleId: String
    let clock: WallClock
    /// Threads fetching at once.
    var workers = 16
    /// Failures listed in the summary; beyond this only counted.
    var maxListedFailures = 1000

    /// The transaction IDs of an input file.
    struct Input: Sendable {
        /// Distinct IDs in input order.
        var transactionIds: [String] = []
        /// Lines repeating an earlier ID.
        var repeated = 0
        /// Lines that are not transaction IDs.
        var invalid: [(line: Int, reason: String)] = []
    }

    /// Reads one transaction ID per line; blank lines and lines starting with `#` are skipped.
    static func read(_ lines: some Sequence<LineReader.Line>) -> Input {
        var input = Input()
        var seen: Set<String> = []
        for (offset, line) in lines.enumerated() {
            guard case .text(let raw) = line else {
                input.invalid.append((offset + 1, "line is longer than 1 MiB"))
                continue
            }
            let text = raw.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                input.invalid.append((offset + 1, "not a transaction ID (1 to 64 decimal digits): '\(text.prefix(80))'"))
                continue
            }
            if seen.insert(text).inserted {
                input.transactionIds.append(text)
            } else {
                input.repeated += 1
            }
        }
        return input
    }

    /// What a worker hands the writer.
    private enum Work: Sendable {
        case fetched(CustomerHistorySync.Fetched)
        case covered(String, by: String)
        case notFound(String)
        case failed(String, CustomerHistorySync.Failure)
    }

    /// What the workers share.
    private struct Shared {
        var next = 0
        var running = 0
        var results: [Work] = []
        /// IDs held by a history fetched in this run, and the ID it was fetched through.
        var claimed: [String: String] = [:]
        var abortReason: String?
        var requests = 0
    }

    /// The workers' shared state and the writer's wake-up, for threads to hold.
    private final class Coordinator: Sendable {
        let shared = Mutex(Shared())
        let wake = DispatchSemaphore(value: 0)
    }

    /// Runs the backfill of `input`; `shouldStop` is polled between IDs (an interrupt), and
    /// `onProgress` called a few times a second from the calling thread. A storage failure stops
    /// the run and throws; everything stored before it stays, with its IDs recorded as done.
    func run(_ input: Input, shouldStop: @escaping @Sendable () -> Bool = { false },
             onProgress: (BackfillProgress) -> Void = { _ in }) throws -> BackfillSummary {
        let started = ContinuousClock.now
        var summary = BackfillSummary()
        summary.transactionIds = input.transactionIds.count
        summary.repeated = input.repeated
        for (line, reason) in input.invalid { fail(&summary, BackfillSummary.Failure(transactionId: nil, line: line, reason: reason)) }
        let pending = try notDone(input.transactionIds)
        summary.alreadyDone = input.transactionIds.count - pending.count

        let coordinator = Coordinator()
        let count = min(max(1, workers), max(1, pending.count))
        coordinator.shared.withLock { $0.running = count }
        for _ in 0..<count {
            NamedThread.start("history-backfill", stackSize: 1 << 20) { [sync, bundleId] in
                Self.work(pending, sync: sync, bundleId: bundleId, coordinator: coordinator, shouldStop: shouldStop)
            }
        }

        var done = 0
        var errors = 0
        var storageFailure: (any Error)?
        while true {
            _ = coordinator.wake.wait(timeout: .now() + 0.2)
            let (batch, running) = coordinator.shared.withLock { shared in
                defer { shared.results.removeAll(keepingCapacity: true) }
                return (shared.results, shared.running)
            }
            if storageFailure == nil, !batch.isEmpty {
                do {
                    try write(batch, into: &summary)
                } catch {
                    storageFailure = error
                    coordinator.shared.withLock { $0.abortReason = "the history could not be stored: \(error)" }
                }
            }
            done += batch.count
            errors += batch.count { if case .failed = $0 { true } else { false } }
            onProgress(BackfillProgress(total: pending.count, done: done, errors: errors, elapsed: ContinuousClock.now - started))
            if running == 0 && batch.isEmpty { break }
        }
        if let storageFailure { throw storageFailure }
        let final = coordinator.shared.withLock { $0 }
        summary.requests = final.requests
        summary.abortReason = final.abortReason
        summary.remaining = pending.count - done
        summary.interrupted = summary.remaining > 0
        let elapsed = ContinuousClock.now - started
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// Those of `ids` no earlier run is done with, in order.
    private func notDone(_ ids: [String]) throws -> [String] {
        var done: Set<String> = []
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + 10_000, ids.count)])
            done.formUnion(try progressStore.backfilled(bundleId: bundleId, among: chunk))
            start += chunk.count
        }
        return ids.filter { !done.contains($0) }
    }

    /// A worker: takes the next ID until none is left or the run stops.
    private static func work(_ ids: [String], sync: CustomerHistorySync, bundleId: String, coordinator: Coordinator,
                             shouldStop: @Sendable () -> Bool) {
        defer {
            coordinator.shared.withLock { $0.running -= 1 }
            coordinator.wake.signal()
        }
        while true {
            let taken: (id: String, claimedBy: String?)? = coordinator.shared.withLock { shared in
                guard shared.abortReason == nil, shared.next < ids.count, !shouldStop() else { return nil }
                let id = ids[shared.next]
                shared.next += 1
                return (id, shared.claimed[id])
            }
            guard let (id, claimedBy) = taken else { return }
            let work: Work
            if let claimedBy {
                work = .covered(id, by: claimedBy)
            } else {
                do {
                    let fetched = try sync.fetch(bundleId: bundleId, transactionId: id)
                    work = .fetched(fetched)
                } catch {
                    work = Self.failed(id, error)
                }
            }
            coordinator.shared.withLock { shared in
                switch work {
                case .fetched(let fetched):
                    shared.requests += fetched.requests
                    for other in fetched.transactionIds where shared.claimed[other] == nil { shared.claimed[other] = id }
                case .failed(_, let failure):
                    if let reason = Self.abortReason(failure), shared.abortReason == nil { shared.abortReason = reason }
                default:
                    break
                }
                shared.results.append(work)
            }
            coordinator.wake.signal()
        }
    }

    private static func failed(_ id: String, _ failure: CustomerHistorySync.Failure) -> Work {
        if case .notFound = failure { return .notFound(id) }
        return .failed(id, failure)
    }

    /// A failure every other ID would share, which stops the run rather than repeat it for each.
    private static func abortReason(_ failure: CustomerHistorySync.Failure) -> String? {
        switch failure {
        case .api(.unauthorized), .api(.tokenSigningFailed), .unavailable: failure.description
        default: nil
        }
    }

    /// Stores the fetched histories of `batch`, then records its IDs as done.
    private func write(_ batch: [Work], into summary: inout BackfillSummary) throws {
        let now = clock.now.milliseconds
        var items: [HistoryItem] = []
        var entries: [BackfillEntry] = []
        for work in batch {
            switch work {
            case .fetched(let fetched):
                summary.fetched += 1
                summary.ignored += fetched.ignored
                items += fetched.items
                let environment = fetched.environment.rawValue
                entries.append(BackfillEntry(bundleId: bundleId, transactionId: fetched.transactionId, outcome: .fetched,
                                             environment: environment, finishedAt: now))
                for other in fetched.transactionIds.sorted() where other != fetched.transactionId {
                    entries.append(BackfillEntry(bundleId: bundleId, transactionId: other, outcome: .covered, environment: environment,
                                                 coveredBy: fetched.transactionId, finishedAt: now))
                }
            case .covered(let id, let by):
                summary.covered += 1
                entries.append(BackfillEntry(bundleId: bundleId, transactionId: id, outcome: .covered, environment: nil, coveredBy: by,
                                             finishedAt: now))
            case .notFound(let id):
                summary.notFound += 1
                entries.append(BackfillEntry(bundleId: bundleId, transactionId: id, outcome: .notFound, environment: nil, finishedAt: now))
            case .failed(let id, let failure):
                fail(&summary, BackfillSummary.Failure(transactionId: id, line: nil, reason: failure.description))
            }
        }
        for changed in try sync.ingestor.history.record(batch: items) {
            if changed { summary.accepted += 1 } else { summary.duplicates += 1 }
        }
        try progressStore.recordBackfill(entries)
    }

    private func fail(_ summary: inout BackfillSummary, _ failure: BackfillSummary.Failure) {
        summary.failedCount += 1
        if summary.failures.count < maxListedFailures { summary.failures.append(failure) }
    }
}
