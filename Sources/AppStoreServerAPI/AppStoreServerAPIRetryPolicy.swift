/// When a failed request is tried again, and how long the client waits first.
///
/// Server errors (5xx, including `GeneralInternalRetryableError` 5000001), Apple's retryable
/// not-found errors, timeouts and connection failures are retried up to ``maxRetries`` times,
/// after an exponential backoff with jitter. A 429 (`RateLimitExceededError` 4290000) is
/// retried up to ``maxRateLimitRetries`` times, at the instant Apple's `Retry-After` names,
/// when that is no further than ``maxRetryAfterWait`` away.
public struct AppStoreServerAPIRetryPolicy: Hashable, Sendable {
    /// Retries after server errors, timeouts and connection failures (0: none).
    public var maxRetries: Int
    /// The backoff before the first retry; it doubles for each further one.
    public var initialBackoff: Duration
    /// The longest backoff.
    public var maxBackoff: Duration
    /// Retries after 429 answers (0: none).
    public var maxRateLimitRetries: Int
    /// The longest wait for a `Retry-After` instant; a later one fails the request at once
    /// with ``AppStoreServerAPIError/rateLimited(retryAfter:)``.
    public var maxRetryAfterWait: Duration
    /// Whether a request that timed out is retried (a caller on a tight deadline says no).
    public var retriesTimeouts: Bool

    public init(maxRetries: Int = 3, initialBackoff: Duration = .milliseconds(500), maxBackoff: Duration = .seconds(8),
                maxRateLimitRetries: Int = 5, maxRetryAfterWait: Duration = .seconds(60), retriesTimeouts: Bool = true) {
        self.maxRetries = maxRetries
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxRateLimitRetries = maxRateLimitRetries
        self.maxRetryAfterWait = maxRetryAfterWait
        self.retriesTimeouts = retriesTimeouts
    }

    /// Every failure is final: for a caller that must answer within one request's timeout.
    public static let none = AppStoreServerAPIRetryPolicy(maxRetries: 0, maxRateLimitRetries: 0,
                                                          maxRetryAfterWait: .zero, retriesTimeouts: false)

    /// Whether the counts and waits are non-negative and the longest backoff is no shorter
    /// than the first.
    public var isConsistent: Bool {
        maxRetries >= 0 && maxRateLimitRetries >= 0 && initialBackoff >= .zero && maxBackoff >= initialBackoff
            && maxRetryAfterWait >= .zero
    }

    /// The wait before retry number `retry` (1 for the first): the exponential backoff capped
    /// at ``maxBackoff``, of which a random half is kept ("equal jitter"), so that clients
    /// failing together do not retry together.
    public func backoff(beforeRetry retry: Int, unitRandom: Double = Double.random(in: 0...1)) -> Duration {
        let doublings = min(max(retry - 1, 0), 30)
        let exponential = min(initialBackoff.seconds * Double(1 << doublings), maxBackoff.seconds)
        let jittered = exponential / 2 + exponential / 2 * min(max(unitRandom, 0), 1)
        return .milliseconds(Int64((jittered * 1000).rounded()))
    }
}
