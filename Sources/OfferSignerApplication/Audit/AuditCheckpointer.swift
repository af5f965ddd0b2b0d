import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization

/// Signs checkpoints of the signature log with the audit key: every `interval` while records
/// are appended, and once more when the service stops. Each checkpoint signs the chain's end
/// as this process committed it (not as the file says), is written to the JSON log first —
/// the copy the log pipeline keeps outside the database — and then stored beside the log.
/// Without an audit key in the keys file it signs nothing.
public final class AuditCheckpointer: Sendable {
    private let log: any SignatureLog
    private let store: any CheckpointStore
    private let keyRing: KeyRing
    private let clock: WallClock
    private let logger: Logger
    private let interval: Duration
    private let state: Mutex<State>
    /// Signalled to end the timer early (on `stop`).
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by the timer thread as it ends.
    private let ended = DispatchSemaphore(value: 0)

    private struct State {
        /// The chain position of the last checkpoint signed (or the end found at start).
        var signed: ChainLink
        /// The newest checkpoint this process signed.
        var latest: AuditCheckpoint?
        var running = false
        var stopped = false
    }

    /// - Parameter interval: the longest time appended records go without a checkpoint.
    public init(log: any SignatureLog, store: any CheckpointStore, keyRing: KeyRing, clock: WallClock = .system,
                logger: Logger, interval: Duration) {
        self.log = log
        self.store = store
        self.keyRing = keyRing
        self.clock = clock
        self.logger = logger
        self.interval = interval
        state = Mutex(State(signed: log.committedEnd()))
    }

    /// The newest checkpoint this process signed, if any.
    public var latest: AuditCheckpoint? { state.withLock { $0.latest } }

    /// Starts the timer thread.
    public func start() {
        let start = state.withLock { state -> Bool in
            guard !state.running, !state.stopped else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        NamedThread.start("audit-checkpointer") { [self] in
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            while wake.wait(timeout: .now() + seconds) == .timedOut {
                checkpointIfMoved()
            }
            ended.signal()
        }
    }

    /// Stops the timer and signs the final checkpoint, for the records appended since the
    /// last one. Call after the last append (once the HTTP server has stopped).
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return state.running && !state.stopped
        }
        if wasRunning {
            wake.signal()
            ended.wait()
        }
        checkpointIfMoved()
    }

    /// Signs, logs and stores a checkpoint of the committed end if it moved since the last
    /// one; returns it (nil when nothing moved, no audit key is configured, or signing failed).
    @discardableResult
    public func checkpointIfMoved() -> AuditCheckpoint? {
        guard let key = keyRing.current.auditKey else { return nil }
        let end = log.committedEnd()
        guard end != state.withLock({ $0.signed }) else { return nil }
        let checkpoint: AuditCheckpoint
        do {
            checkpoint = try AuditCheckpoint.sign(end, at: clock.now.milliseconds, keyId: key.keyId, key: key.privateKey)
        } catch {
            logger.log(.error, "audit checkpoint could not be signed", ["sequence": .int(Int(end.sequence)), "reason": .string(error.description)])
            return nil
        }
        logger.logAlways(.info, Self.logMessage, [
            "sequence": .int(Int(checkpoint.sequence)), "chainHash": .string(checkpoint.chainHash),
            "timestamp": .int(Int(checkpoint.timestamp)), "keyId": .string(checkpoint.keyId), "signature": .string(checkpoint.signature),
        ])
        state.withLock { state in
            state.signed = end
            state.latest = checkpoint
        }
        do {
            try store.add(checkpoint)
        } catch {
            logger.log(.error, "audit checkpoint could not be stored in the database; the logged copy stands",
                       ["sequence": .int(Int(checkpoint.sequence)), "reason": .string(String(describing: error))])
        }
        return checkpoint
    }

    /// The `message` of checkpoint lines in the JSON log (what `audit verify --checkpoints` reads).
    public static let logMessage = "audit checkpoint"
}
