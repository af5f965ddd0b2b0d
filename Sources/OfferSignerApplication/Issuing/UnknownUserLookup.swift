import Dispatch
import Foundation
import OfferSignerCore
import Synchronization

/// For the signing use case: fetches the history of a user the service knows nothing about,
/// through a `HistoryFetcher`, waiting for it at most `timeout` (`OFFER_SIGNER_FETCH_UNKNOWN_USERS`).
///
/// The caller never waits longer than `timeout`: a fetch still running then goes on in the
/// background and stores what it gets for the user's next request. A transaction ID looked up
/// recently is not looked up again for `repeatAfter`, and at most `maxInFlight` fetches run at
/// once, so a client cannot turn signing requests into a flood of App Store requests.
public final class UnknownUserLookup: Sendable {
    /// What a lookup did.
    public enum Outcome: String, Sendable, Equatable {
        /// The history was fetched and stored in time.
        case fetched
        /// The fetch failed (not found, unreachable, refused) in time.
        case failed
        /// The fetch did not finish in time; it goes on in the background.
        case timedOut
        /// Not tried: the transaction was looked up recently, or too many fetches are running.
        case skipped
    }

    private struct State {
        var recent: [String: ContinuousClock.Instant] = [:]
        var inFlight = 0
    }

    let fetcher: any HistoryFetcher
    /// The longest a signing request waits for the fetch.
    public let timeout: Duration
    let repeatAfter: Duration
    let maxInFlight: Int
    let maxRemembered: Int
    private let state = Mutex(State())
    private let logger: Logger

    public init(fetcher: any HistoryFetcher, timeout: Duration = .seconds(2), repeatAfter: Duration = .seconds(600),
                maxInFlight: Int = 8, maxRemembered: Int = 100_000, logger: Logger = .silent) {
        self.fetcher = fetcher
        self.timeout = timeout
        self.repeatAfter = repeatAfter
        self.maxInFlight = maxInFlight
        self.maxRemembered = maxRemembered
        self.logger = logger
    }

    /// Fetches the history of the customer of `transactionId` in `bundleId`, waiting at most `timeout`.
    public func lookUp(bundleId: String, transactionId: String) -> Outcome {
        let key = bundleId + "\u{0}" + transactionId
        let now = ContinuousClock.now
        let admitted = state.withLock { state -> Bool in
            if let last = state.recent[key], now - last < repeatAfter { return false }
            guard state.inFlight < maxInFlight else { return false }
            if state.recent.count >= maxRemembered {
                state.recent = state.recent.filter { now - $0.value < repeatAfter }
                if state.recent.count >= maxRemembered { state.recent.removeAll() }
            }
            state.recent[key] = now
            state.inFlight += 1
            return true
        }
        guard admitted else { return .skipped }
        let pending = Pending()
        let deadline = now + timeout
        // A thread of its own (at most `maxInFlight` at once): the fetch blocks on the network,
        // and a blocked worker of the shared dispatch pool would hold up other work.
        NamedThread.start("unknown-user-lookup") { [self] in
            let outcome: Outcome
            do {
                try fetcher.fetchHistory(bundleId: bundleId, transactionId: transactionId, deadline: deadline)
                outcome = .fetched
            } catch {
                logger.log(.warning, "history of an unknown user not fetched", [
                    "bundleId": .string(bundleId), "transactionId": .string(transactionId), "reason": .string("\(error)"),
                ])
                outcome = .failed
            }
            pending.outcome.withLock { $0 = outcome }
            state.withLock { $0.inFlight -= 1 }
            pending.finished.signal()
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard pending.finished.wait(timeout: .now() + seconds) == .success else { return .timedOut }
        return pending.outcome.withLock { $0 } ?? .failed
    }

    /// A fetch's outcome, handed from the background thread to the waiting caller.
    private final class Pending: Sendable {
        let outcome = Mutex<Outcome?>(nil)
        let finished = DispatchSemaphore(value: 0)
    }
}
