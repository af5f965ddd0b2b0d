@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

@Suite("Apple's errors, retries, Retry-After and timeouts")
struct FailureHandlingTests {
    @Test("500 5000001 is retried with backoff until it succeeds")
    func serverErrorThenSuccess() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 10_000, count: 2)
        testbed.store.inject([.serverError(), .serverError(status: 503, code: 5000001)], into: "history")
        let client = try testbed.client()

        let (history, seconds) = try measure { try client.transactionHistory(transactionId: ids[0]) }

        #expect(history.signedTransactions.count == 2)
        #expect(testbed.store.requests.count == 3)
        // Equal jitter keeps at least half of each backoff: 5 ms, then 10 ms.
        #expect(seconds >= 0.015)
    }

    @Test("a 5xx that persists fails after the allowed retries, with Apple's code")
    func serverErrorPersists() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 11_000, count: 1)
        testbed.store.inject(Array(repeating: .serverError(), count: 10), into: "history")
        let client = try testbed.client { $0.retry.maxRetries = 2 }

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) }

        #expect(error == .serverError(status: 500, errorCode: 5000001, errorMessage: "An unknown error occurred. Please try again.", attempts: 3))
        #expect(error?.isTransient == true)
        #expect(testbed.store.requests.count == 3)
    }

    @Test("Apple's retryable 404s are retried; other 4xx answers are not")
    func retryableNotFound() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 12_000, count: 1)
        testbed.store.inject([.status(404, code: 4040006, message: "Original transaction id not found. Please try again.")], into: "history")
        testbed.store.inject([.status(400, code: 4000006, message: "Invalid transaction id.")], into: "statuses")
        let client = try testbed.client()

        let history = try client.transactionHistory(transactionId: ids[0])
        let rejected = thrownError { () throws(AppStoreServerAPIError) in try client.allSubscriptionStatuses(transactionId: ids[0]) }

        #expect(history.signedTransactions.count == 1)
        #expect(rejected == .requestRejected(status: 400, errorCode: 4000006, errorMessage: "Invalid transaction id."))
        #expect(testbed.store.requests.count == 3)
    }

    @Test("429 4290000: the client waits until Retry-After (UNIX milliseconds), then succeeds")
    func retryAfter() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 13_000, count: 1)
        testbed.store.inject([.rateLimited(after: .milliseconds(400))], into: "history")
        let client = try testbed.client()

        let (history, seconds) = try measure { try client.transactionHistory(transactionId: ids[0]) }

        #expect(history.signedTransactions.count == 1)
        let seen = testbed.store.requests
        #expect(seen.count == 2)
        #expect(seconds >= 0.38)
        #expect((seen[1].at - seen[0].at).seconds >= 0.38)
    }

    @Test("the pause after a 429 holds back every request of the client, not only the one refused")
    func pauseIsShared() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 14_000, count: 1)
        testbed.store.inject([.rateLimited(after: .seconds(1))], into: "statuses")
        testbed.store.add(MockCustomer(transactionIds: ["14500"], signedTransactions: [],
                                       statuses: SubscriptionStatusTests.statuses(original: "14500", latest: "14501")))
        let client = try testbed.client()
        let statusesDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? client.allSubscriptionStatuses(transactionId: "14500")
            statusesDone.signal()
        }
        // The 429 has reached the client when its pause is in force (a positive signal, not a sleep).
        let deadline = ContinuousClock.now + .seconds(60)
        while client.limiter.remainingPause == .zero && testbed.store.requests.count < 2 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
        #expect(client.limiter.remainingPause > .zero, "the history is asked for during the pause")

        let history = try client.transactionHistory(transactionId: ids[0])
        #expect(statusesDone.wait(timeout: .now() + 60) == .success)

        #expect(history.signedTransactions.count == 1)
        let seen = testbed.store.requests
        #expect(seen.count == 3)
        let refusedAt = try #require(seen.first).at
        // Retry-After is 1 s after the 429 left the mock: no request of the client (the history,
        // which was never refused, included) arrives before it.
        #expect(seen[1...].allSatisfy { ($0.at - refusedAt).seconds >= 0.98 }, "\(seen.map { ($0.at - refusedAt).seconds })")
    }

    @Test("a Retry-After further away than the policy waits fails at once, and so does the next call during the pause")
    func longRetryAfter() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 15_000, count: 1)
        let until = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000
        testbed.store.inject([.rateLimitedHeader(String(until))], into: "history")
        let client = try testbed.client()

        let (first, seconds) = measure { thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) } }
        let second = thrownError { () throws(AppStoreServerAPIError) in try client.allSubscriptionStatuses(transactionId: ids[0]) }

        #expect(first == .rateLimited(retryAfter: Date(milliseconds: until)))
        #expect(seconds < 60, "failed at once rather than waiting an hour (\(seconds) s)")
        guard case .rateLimited(let retryAfter?)? = second else {
            Issue.record("expected rateLimited, got \(String(describing: second))")
            return
        }
        #expect(abs(retryAfter.timeIntervalSince(Date(milliseconds: until))) < 2)
        #expect(testbed.store.requests.count == 1)
        #expect(first?.description.hasPrefix("the App Store Server API rate limit was exceeded (4290000); Apple accepts requests again at ") == true)
    }

    @Test("a 429 without Retry-After backs off and retries; too many 429s fail")
    func rateLimitWithoutHeader() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 16_000, count: 1)
        testbed.store.inject([.rateLimitedHeader(nil), .rateLimitedHeader("garbage")], into: "history")
        testbed.store.inject(Array(repeating: .rateLimitedHeader(nil), count: 5), into: "statuses")
        let client = try testbed.client { $0.retry.maxRateLimitRetries = 2 }

        let history = try client.transactionHistory(transactionId: ids[0])
        let error = thrownError { () throws(AppStoreServerAPIError) in try client.allSubscriptionStatuses(transactionId: ids[0]) }

        #expect(history.signedTransactions.count == 1)
        #expect(error == .rateLimited(retryAfter: nil))
        #expect(testbed.store.requests.count == 3 + 3)
    }

    @Test("an answer slower than the timeout is a timedOut error, in about the timeout")
    func slowAnswer() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 17_000, count: 1)
        // An answer that would take a minute; the ceiling only catches a client that waited for it.
        testbed.store.inject([.slow(.seconds(60))], into: "history")
        let client = try testbed.client {
            $0.timeout = .milliseconds(300)
            $0.retry = .none
        }

        let (error, seconds) = measure { thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) } }

        #expect(error == .timedOut(after: .milliseconds(300), attempts: 1))
        #expect(error?.isTransient == true)
        #expect(seconds >= 0.29 && seconds < 45, "\(seconds) s")
    }

    @Test("a timeout is retried when the policy allows it")
    func slowThenFast() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 18_000, count: 1)
        testbed.store.inject([.slow(.seconds(3))], into: "history")
        let client = try testbed.client { $0.timeout = .milliseconds(300) }

        let history = try client.transactionHistory(transactionId: ids[0])

        #expect(history.signedTransactions.count == 1)
        #expect(testbed.store.requests.count == 2)
    }

    @Test("401: a token the App Store refuses names the key ID")
    func unauthorized() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 19_000, count: 1)
        let wrongKey = try testbed.client(key: try P256PrivateKey.generate())
        let wrongKeyId = try testbed.client(keyId: "OTHERKEY99")

        let signature = thrownError { () throws(AppStoreServerAPIError) in try wrongKey.transactionHistory(transactionId: ids[0]) }
        let keyId = thrownError { () throws(AppStoreServerAPIError) in try wrongKeyId.transactionHistory(transactionId: ids[0]) }

        #expect(signature == .unauthorized(keyId: APITestbed.keyId, issuerId: APITestbed.issuerId, bundleId: TestSignedData.bundleId))
        #expect(keyId == .unauthorized(keyId: "OTHERKEY99", issuerId: APITestbed.issuerId, bundleId: TestSignedData.bundleId))
        #expect(keyId?.description.contains("key OTHERKEY99") == true)
        #expect(signature?.isTransient == false)
        #expect(testbed.store.requests.count == 2)
    }

    @Test("nothing listening: transportFailed after the retries")
    func connectionRefused() throws {
        let testbed = try APITestbed()
        let port = testbed.server.port
        testbed.server.stop()
        let client = try testbed.client {
            $0.baseURL = "http://127.0.0.1:\(port)"
            $0.retry.maxRetries = 1
        }

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: "1") }

        guard case .transportFailed(let reason, let attempts)? = error else {
            Issue.record("expected transportFailed, got \(String(describing: error))")
            return
        }
        #expect(attempts == 2)
        #expect(reason.contains("Couldn't connect"))
    }

    @Test("a body larger than allowed is refused")
    func tooLarge() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 20_000, count: 20)
        let client = try testbed.client { $0.maxResponseBytes = 4096 }

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) }

        #expect(error == .malformedResponse("GET /inApps/v2/history/20000: a body of more than 4096 bytes"))
    }
}
