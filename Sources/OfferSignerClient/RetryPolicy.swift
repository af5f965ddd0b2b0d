import Foundation

/// How long a call keeps trying while the service answers `503 unavailable`: exponential
/// backoff with full jitter (each wait a random time up to the current backoff, or the
/// service's `Retry-After` when it names one), never past `deadline` seconds from the call's
/// start; then the call throws ``OfferSignerError/unavailable(attempts:detail:)``. Other
/// refusals are never retried.
public struct RetryPolicy: Sendable, Equatable {
    /// Seconds from the start of a call after which no request is sent and no wait begins;
    /// also each request's timeout, as what remains of it.
    public var deadline: TimeInterval
    /// The first backoff, in seconds.
    public var initialBackoff: TimeInterval
    /// The longest backoff, in seconds.
    public var maximumBackoff: TimeInterval

    /// A policy with these bounds.
    public init(deadline: TimeInterval = 10, initialBackoff: TimeInterval = 0.25, maximumBackoff: TimeInterval = 2) {
        self.deadline = deadline
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// Ten seconds, from a quarter of a second up to two between attempts: about what a
    /// customer waits after tapping "Claim offer".
    public static let `default` = RetryPolicy()

    /// The wait before attempt `attempt + 1` (`attempt` counts from 1), given the service's
    /// `Retry-After` and a random number in `0...1`.
    func backoff(afterAttempt attempt: Int, retryAfter: TimeInterval?, random: Double) -> TimeInterval {
        if let retryAfter { return max(0, retryAfter) }
        let ceiling = min(maximumBackoff, initialBackoff * pow(2, Double(min(attempt - 1, 30))))
        return ceiling * random
    }
}
