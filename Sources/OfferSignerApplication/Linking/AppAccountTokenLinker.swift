import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization

/// Links token-less subscriptions to their user at Apple in the background
/// (`OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS=on`): a request that was answered (a signature or an
/// eligibility answer returned, never a refusal), whose `userId` is a UUID, whose proven
/// subscription carries no app account token and whose proof shows the asking device holds
/// it (``BoundCustomer/tokenlessSubscription``) is queued here once its answer is made; the
/// answer does not wait for Apple. One worker thread (`token-linker`) takes the queue in order:
/// each link is an ``AppAccountTokenLinking`` attempt under the app's client (its retries and
/// the App Store Server API rate limit shared with every other call); a link Apple could not
/// answer is tried again after a backoff (1 s, doubling, at most a minute) up to
/// ``maxAttempts`` times, other links going on meanwhile. The queue is bounded: when full, a
/// link is dropped and counted (`offer_signer_app_account_token_links_total{outcome="dropped"}`);
/// the subscription's next proven request queues it again. A subscription queued or being
/// linked is not queued twice.
public final class AppAccountTokenLinker: Sendable {
    /// Links waiting, at most.
    public let capacity: Int
    /// Calls to Apple per link before it is recorded as failed.
    public let maxAttempts: Int
    /// The wait before retry `n` (1-based).
    let backoff: @Sendable (Int) -> Duration

    private let linking: AppAccountTokenLinking
    private let metrics: Metrics
    private let logger: Logger

    private struct Job: Sendable {
        var request: AppAccountTokenLinking.Request
        var attempts = 0
        var due: ContinuousClock.Instant
    }

    private struct Subscription: Hashable {
        let bundleId: String
        let environment: AppStoreEnvironment
        let originalTransactionId: String
    }

    private struct State {
        var jobs: [Job] = []
        /// Subscriptions queued or being linked.
        var pending: Set<Subscription> = []
        var working = false
        var closed = false
        var dropped = 0
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    public init(linking: AppAccountTokenLinking, capacity: Int = 1000, maxAttempts: Int = 5,
                backoff: @escaping @Sendable (Int) -> Duration = { .seconds(min(60, 1 << min($0 - 1, 6))) },
                metrics: Metrics, logger: Logger) {
        self.linking = linking
        self.capacity = max(1, capacity)
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
        self.metrics = metrics
        self.logger = logger
        NamedThread.start("token-linker") { [self] in run() }
    }

    deinit { close() }

    /// Queues a link of the answered customer's token-less subscription, held by the asking
    /// device, to their user, when the user is a UUID; returns at once. Whether it was queued (false: nothing to link, already
    /// queued, or dropped because the queue is full).
    @discardableResult
    func offer(_ customer: BoundCustomer, requestId: String) -> Bool {
        guard let subscription = customer.tokenlessSubscription, let token = UUID(uuidString: customer.userId) else { return false }
        return enqueue(AppAccountTokenLinking.Request(bundleId: customer.app.bundleId, environment: customer.environment,
                                                      originalTransactionId: subscription, appAccountToken: token,
                                                      actor: "service", requestId: requestId))
    }

    /// Queues `request`; see ``offer(_:requestId:)``.
    @discardableResult
    public func enqueue(_ request: AppAccountTokenLinking.Request) -> Bool {
        let key = Subscription(bundleId: request.bundleId, environment: request.environment,
                               originalTransactionId: request.originalTransactionId)
        let outcome = state.withLock { state -> (queued: Bool, dropped: Bool, wake: Bool) in
            guard !state.closed, !state.pending.contains(key) else { return (false, false, false) }
            guard state.jobs.count < capacity else {
                state.dropped += 1
                return (false, true, false)
            }
            state.jobs.append(Job(request: request, due: .now))
            state.pending.insert(key)
            return (true, false, true)
        }
        if outcome.dropped {
            metrics.recordLink("dropped")
            logger.log(.warning, "app account token link dropped: the queue is full",
                       ["capacity": .int(capacity), "originalTransactionId": .string(request.originalTransactionId)])
        }
        if outcome.wake { wake.signal() }
        return outcome.queued
    }

    /// Links waiting or being made now.
    public var backlog: Int { state.withLock { $0.jobs.count + ($0.working ? 1 : 0) } }

    /// Blocks until nothing is waiting or being linked, or `timeout` passed; whether idle (for tests and shutdown).
    @discardableResult
    public func waitUntilIdle(timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if backlog == 0 { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return backlog == 0
    }

    /// Stops the worker; links still waiting are left (their subscriptions' next proven requests queue them again).
    public func close() {
        state.withLock { $0.closed = true }
        wake.signal()
    }

    private enum Step {
        case work(Job)
        case wait(Duration?)
        case stop
    }

    private func run() {
        while true {
            let step = state.withLock { state -> Step in
                if state.closed { return .stop }
                let now = ContinuousClock.now
                guard let index = state.jobs.indices.min(by: { state.jobs[$0].due < state.jobs[$1].due }) else { return .wait(nil) }
                guard state.jobs[index].due <= now else { return .wait(state.jobs[index].due - now) }
                state.working = true
                return .work(state.jobs.remove(at: index))
            }
            switch step {
            case .stop: return
            case .wait(let duration?):
                _ = wake.wait(timeout: .now() + .milliseconds(max(1, Int((duration / .milliseconds(1)).rounded(.up)))))
            case .wait(nil): wake.wait()
            case .work(let job): work(job)
            }
        }
    }

    private func work(_ job: Job) {
        var job = job
        var retry = false
        do {
            switch try linking.attempt(job.request, attempts: job.attempts) {
            case .ended(let link):
                report(link)
            case .alreadyLinked:
                break
            case .retry(let error):
                job.attempts += 1
                if job.attempts >= maxAttempts {
                    report(try linking.gaveUp(job.request, error: error, attempts: job.attempts))
                } else {
                    job.due = .now + backoff(job.attempts)
                    retry = true
                    logger.log(.info, "app account token link will be retried",
                               ["originalTransactionId": .string(job.request.originalTransactionId),
                                "attempts": .int(job.attempts), "reason": .string(error.description)])
                }
            }
        } catch {
            metrics.recordLink("failed")
            logger.log(.error, "app account token link could not be recorded",
                       ["originalTransactionId": .string(job.request.originalTransactionId), "reason": .string(String(describing: error))])
        }
        let key = Subscription(bundleId: job.request.bundleId, environment: job.request.environment,
                               originalTransactionId: job.request.originalTransactionId)
        state.withLock { state in
            state.working = false
            if retry && !state.closed {
                state.jobs.append(job)
            } else {
                state.pending.remove(key)
            }
        }
    }

    private func report(_ link: AppAccountTokenLink) {
        metrics.recordLink(link.outcome.rawValue)
        logger.log(link.outcome == .failed ? .warning : .info, "app account token link \(link.outcome.rawValue)", [
            "bundleId": .string(link.bundleId), "environment": .string(link.environment.rawValue),
            "originalTransactionId": .string(link.originalTransactionId), "attempts": .int(link.attempts),
            "reason": link.reason.map(JSONValue.string) ?? .null,
        ])
    }
}
