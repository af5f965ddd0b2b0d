import OfferSignerCore
import Synchronization

/// What the signature log's writer last did, as readiness and checkpoints see it: whether
/// its last batch committed, and where the chain ended after its last committed append.
/// Updated on the writer thread in batch order. The same for both engines.
final class SignatureLogHealth: Sendable {
    private struct State {
        /// Why the last batch failed, or nil when it committed.
        var failure: String?
        /// When a readiness probe last tried a write.
        var lastProbe: ContinuousClock.Instant?
        /// The chain's end after the last committed append.
        var committed: ChainLink
    }

    private let state: Mutex<State>

    /// A log found ending at `end`; `failure` when it cannot take appends from the start.
    init(end: ChainLink, failure: String?) {
        state = Mutex(State(failure: failure, committed: end))
    }

    /// The chain's end after the last committed append.
    var committed: ChainLink { state.withLock { $0.committed } }

    /// A batch committed; `end` is its last record's link (nil when it appended none).
    func committed(through end: ChainLink?) {
        state.withLock { state in
            state.failure = nil
            if let end { state.committed = end }
        }
    }

    /// A batch failed for `reason`. The failure itself counts as the latest probe: readiness
    /// turns off on it, and no probe write (which may still fit where an append did not) turns
    /// it on again before the probe interval has passed.
    func failed(_ reason: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.failure = reason
            state.lastProbe = now
        }
    }

    /// Records a writer batch's outcome: a commit clears a failure and moves the committed end;
    /// a rolled-back batch is a failure, unless `isConstraintViolation` says only a constraint
    /// refused it (a nonce used twice: the log itself is writable).
    func record(_ outcome: Result<[Result<LoggedSignature?, any Error>], any Error>,
                isConstraintViolation: (any Error) -> Bool) {
        switch outcome {
        case .success(let results):
            let last = results.reversed().lazy.compactMap { try? $0.get() }.first
            committed(through: last.map { ChainLink(sequence: $0.sequence, hash: $0.hash) })
        case .failure(let error) where isConstraintViolation(error):
            break
        case .failure(let mismatch as ChainEndMismatch):
            failed(SignatureLogError.endMismatch(mismatch).description)
        case .failure(let error):
            failed("the signature log cannot be written: \(error)")
        }
    }

    /// What a readiness probe's write says: ready when it committed.
    static func readiness(afterProbe result: Result<LoggedSignature?, any Error>) -> SignatureLogReadiness {
        switch result {
        case .success: .ready
        case .failure(let mismatch as ChainEndMismatch): .notReady(SignatureLogError.endMismatch(mismatch).description)
        case .failure(let error): .notReady("the signature log cannot be written: \(error)")
        }
    }

    /// The failure of the last batch, if it failed, and whether a probe write is due now (at
    /// most one per `interval`; the caller that gets true makes it).
    func failure(probeInterval interval: Duration) -> (reason: String, probeDue: Bool)? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let failure = state.failure else { return nil }
            let due = state.lastProbe.map { now - $0 >= interval } ?? true
            if due { state.lastProbe = now }
            return (failure, due)
        }
    }
}
