@testable import OfferSignerClient
import Testing

/// The backoff between attempts: exponential, fully jittered, capped, and the service's
/// `Retry-After` when it names one.
@Suite("RetryPolicy")
struct RetryPolicyTests {
    let policy = RetryPolicy(deadline: 10, initialBackoff: 0.25, maximumBackoff: 2)

    @Test("the backoff doubles from the initial one up to the maximum, scaled by the jitter")
    func exponentialWithJitter() {
        #expect(policy.backoff(afterAttempt: 1, retryAfter: nil, random: 1) == 0.25)
        #expect(policy.backoff(afterAttempt: 2, retryAfter: nil, random: 1) == 0.5)
        #expect(policy.backoff(afterAttempt: 3, retryAfter: nil, random: 0.5) == 0.5)
        #expect(policy.backoff(afterAttempt: 10, retryAfter: nil, random: 1) == 2)
        #expect(policy.backoff(afterAttempt: 1_000, retryAfter: nil, random: 1) == 2)
        #expect(policy.backoff(afterAttempt: 4, retryAfter: nil, random: 0) == 0)
    }

    @Test("Retry-After, when the service sends it, is the wait")
    func retryAfterWins() {
        #expect(policy.backoff(afterAttempt: 1, retryAfter: 1, random: 0.1) == 1)
        #expect(policy.backoff(afterAttempt: 5, retryAfter: -3, random: 0.1) == 0)
    }
}
