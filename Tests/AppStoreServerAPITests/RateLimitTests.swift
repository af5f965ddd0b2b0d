@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import Synchronization
import Testing

@Suite("Request rate limit")
struct RateLimitTests {
    @Test("slots are spaced 1/rate apart across threads")
    func spacing() throws {
        let limiter = RequestRateLimiter(requestsPerSecond: 50)
        let times = Mutex<[ContinuousClock.Instant]>([])

        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: 26) { _ in
            try! limiter.acquire(maxPauseWait: .zero)
            times.withLock { $0.append(.now) }
        }

        // 26 requests at 50 per second: whatever the threads' order, the k-th request to get
        // through (counted from 0) gets through no sooner than k × 20 ms after the first call.
        // (A thread may record its time late, never early: late times only raise the k-th.)
        let sorted = times.withLock { $0.sorted() }
        #expect(sorted.count == 26)
        for (k, time) in sorted.enumerated() {
            let after = (time - start).seconds
            #expect(after >= Double(k) * 0.02 - 0.001, "request \(k) got through \(after) s after the start, before its slot")
        }
    }

    @Test("a pause holds requests back; one longer than the caller waits is refused at once")
    func pause() throws {
        let limiter = RequestRateLimiter(requestsPerSecond: 1000)
        limiter.pause(for: .milliseconds(200))

        let refused = thrownError { () throws(RequestRateLimiter.Paused) in try limiter.acquire(maxPauseWait: .milliseconds(50)) }
        let (_, seconds) = try measure { try limiter.acquire(maxPauseWait: .seconds(1)) }

        #expect(refused != nil && refused!.remaining > .milliseconds(100))
        #expect(seconds >= 0.15)
    }

    @Test("the client stays under its configured rate against the mock")
    func clientRate() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 40_000, count: 1)
        let client = try testbed.client { $0.requestsPerSecond = 20 }

        DispatchQueue.concurrentPerform(iterations: 11) { _ in
            _ = try! client.transactionHistory(transactionId: ids[0])
        }

        let arrivals = testbed.store.requests.map(\.at).sorted()
        #expect(arrivals.count == 11)
        // Ten intervals of 50 ms.
        #expect((arrivals.last! - arrivals.first!).seconds >= 0.45)
    }

    @Test("a client with another timeout and retry policy shares the rate, the token and Retry-After pauses")
    func variantSharesTheRate() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 41_000, count: 1)
        let patient = try testbed.client { $0.requestsPerSecond = 20 }
        let hurried = try patient.with(timeout: .milliseconds(300), retry: .none)
        #expect(hurried.configuration.timeout == .milliseconds(300) && hurried.configuration.retry == .none)
        #expect(hurried.configuration.requestsPerSecond == 20 && hurried.credentials.keyId == patient.credentials.keyId)

        DispatchQueue.concurrentPerform(iterations: 10) { index in
            _ = try! (index.isMultiple(of: 2) ? patient : hurried).transactionHistory(transactionId: ids[0])
        }
        let arrivals = testbed.store.requests.map(\.at).sorted()
        #expect((arrivals.last! - arrivals.first!).seconds >= 0.4, "nine intervals of 50 ms across both clients")
        #expect(Set(testbed.store.requests.map(\.request.authorization)).count == 1, "one token for both")

        // An answer that would take a minute: the hurried client gives up after its own 300 ms,
        // once (the ceiling only catches a client that waited for the answer).
        testbed.store.inject([.slow(.seconds(60))], into: "history")
        let (error, seconds) = measure {
            thrownError { () throws(AppStoreServerAPIError) in try hurried.transactionHistory(transactionId: ids[0]) }
        }
        #expect(error == .timedOut(after: .milliseconds(300), attempts: 1))
        #expect(seconds >= 0.29 && seconds < 45, "gave up after \(seconds) s")
        #expect(throws: AppStoreServerAPIConfigurationError.invalidTimeout) { try patient.with(timeout: .zero, retry: .none) }
    }
}

@Suite("Retry policy and Retry-After")
struct RetryPolicyTests {
    @Test("backoff doubles from the initial one up to the maximum, with half of it jittered")
    func backoff() {
        let policy = AppStoreServerAPIRetryPolicy(initialBackoff: .milliseconds(500), maxBackoff: .seconds(4))

        #expect(policy.backoff(beforeRetry: 1, unitRandom: 0) == .milliseconds(250))
        #expect(policy.backoff(beforeRetry: 1, unitRandom: 1) == .milliseconds(500))
        #expect(policy.backoff(beforeRetry: 3, unitRandom: 1) == .seconds(2))
        #expect(policy.backoff(beforeRetry: 9, unitRandom: 0) == .seconds(2))
        #expect(policy.backoff(beforeRetry: 9, unitRandom: 1) == .seconds(4))
        #expect(policy.backoff(beforeRetry: 1000, unitRandom: 0.5) == .seconds(3))
    }

    @Test("Retry-After is Apple's UNIX time in milliseconds; HTTP's seconds are understood too; anything else is ignored")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)

        #expect(AppStoreServerAPIClient.retryAfter("1800000002500", now: now) == Date(timeIntervalSince1970: 1_800_000_002.5))
        #expect(AppStoreServerAPIClient.retryAfter(" 7 ", now: now) == Date(timeIntervalSince1970: 1_800_000_007))
        #expect(AppStoreServerAPIClient.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT", now: now) == nil)
        #expect(AppStoreServerAPIClient.retryAfter("-5", now: now) == nil)
        #expect(AppStoreServerAPIClient.retryAfter(nil, now: now) == nil)
    }

    @Test("query values are percent-encoded")
    func encoding() {
        #expect(AppStoreServerAPIClient.percentEncoded("a b&c=d/é~._-") == "a%20b%26c%3Dd%2F%C3%A9~._-")
    }
}
