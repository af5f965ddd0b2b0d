@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import Synchronization
import Testing

/// `OFFER_SIGNER_FETCH_UNKNOWN_USERS`: a sign request for a user with no known history, naming a
/// transaction, has that transaction's history fetched (at most 2 s) before the decision.
@Suite("Fetching unknown users while signing")
struct UnknownUserLookupTests {
    static let lapsedOffer = TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 60))

    func sign(_ env: TestEnvironment, user: String, transactionId: String) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)", "transactionId": "\#(transactionId)"}"#)
    }

    func harness(lookup: Bool, timeout: Duration = .seconds(2)) throws -> AppStoreAPIHarness {
        let harness = try AppStoreAPIHarness()
        try harness.env.putOffer(Self.lapsedOffer)
        if lookup {
            let sync = CustomerHistorySync(clients: harness.clients, ingestor: harness.ingestor, policy: (timeout: timeout, retry: .none))
            harness.env.unknownUserLookup = UnknownUserLookup(fetcher: sync, timeout: timeout)
        }
        return harness
    }

    @Test("off (the default): an unknown user is refused on what is known, and Apple is not asked")
    func off() throws {
        let harness = try harness(lookup: false)
        harness.addCustomer(user: "old-subscriber", firstId: 8_000_000)
        let response = sign(harness.env, user: "old-subscriber", transactionId: "8000000")
        #expect(response.status == 403 && response.code == "not_eligible")
        #expect(harness.store.requests.isEmpty)
    }

    @Test("on: a lapsed subscriber from before the service is fetched, stored and signed for; the next request needs no fetch")
    func on() throws {
        let harness = try harness(lookup: true)
        harness.addCustomer(user: "old-subscriber", firstId: 8_000_000)
        let (response, seconds) = measure { sign(harness.env, user: "Old-Subscriber", transactionId: "8000002") }
        #expect(response.status == 200, "\(response.json)")
        #expect(seconds < 2)
        #expect(harness.store.requests.map(\.request.path) == ["/inApps/v2/history/8000002", "/inApps/v1/subscriptions/8000002"])
        #expect(sign(harness.env, user: "old-subscriber", transactionId: "8000002").status == 200)
        #expect(harness.store.requests.count == 2, "the user is known now")
    }

    @Test("on: a history that pages for ever stops at the request's deadline: no fetch goes on once the request was answered")
    func endlessHistoryStopsAtDeadline() throws {
        let harness = try harness(lookup: true, timeout: .milliseconds(400))
        let ids = harness.addCustomer(user: "endless", firstId: 8_200_000)
        harness.store.add(MockCustomer(transactionIds: ["8200900"], signedTransactions: [
            TestSignedData.transaction(id: ids[0], original: ids[0], purchased: harness.env.now.addingTimeInterval(-90 * 86_400),
                                       appAccountToken: "endless"),
        ], endlessHistory: true))
        let response = sign(harness.env, user: "endless", transactionId: "8200900")
        #expect(response.code == "not_eligible", "answered on what is known when the fetch runs late")
        Thread.sleep(forTimeInterval: 1)
        let afterAnswer = harness.store.requests.count
        Thread.sleep(forTimeInterval: 1)
        #expect(harness.store.requests.count == afterAnswer, "the fetch stopped at the deadline (\(afterAnswer) requests, then \(harness.store.requests.count))")
        #expect(try harness.count("SELECT COUNT(*) FROM transactions WHERE transaction_id = '\(ids[0])'") == 0, "nothing of it stored")
    }

    @Test("on: another customer's transaction lends no history; a repeated unknown transaction is not fetched again")
    func noBorrowing() throws {
        let harness = try harness(lookup: true)
        harness.addCustomer(user: "someone-else", firstId: 8_100_000)
        #expect(sign(harness.env, user: "me", transactionId: "8100000").code == "not_eligible")
        #expect(sign(harness.env, user: "me", transactionId: "8100000").code == "not_eligible")
        #expect(sign(harness.env, user: "me", transactionId: "999").code == "not_eligible")
        #expect(sign(harness.env, user: "me", transactionId: "999").code == "not_eligible")
        #expect(harness.store.requests.count == 2 + 1, "one fetch of 8100000 (history, statuses), one of 999 (not found)")
    }

    @Test("on: a slow App Store costs the request at most the timeout, and the decision is made on what is known")
    func slowAppStore() throws {
        let harness = try harness(lookup: true, timeout: .milliseconds(500))
        harness.addCustomer(user: "patient", firstId: 8_200_000)
        harness.store.inject([.slow(.seconds(3))], into: "history")
        let (response, seconds) = measure { sign(harness.env, user: "patient", transactionId: "8200000") }
        #expect(response.code == "not_eligible")
        #expect(seconds < 1.2, "waited \(seconds) s")
    }

    /// A fetcher that takes its time, counting its calls.
    final class SlowFetcher: HistoryFetcher {
        let calls = Atomic<Int>(0)
        let delay: TimeInterval
        init(delay: TimeInterval) { self.delay = delay }
        func fetchHistory(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant) throws {
            calls.add(1, ordering: .relaxed)
            Thread.sleep(forTimeInterval: delay)
        }
    }

    @Test("the lookup waits at most its timeout, lets the fetch finish in the background, and caps fetches in flight")
    func lookupBounds() throws {
        let fetcher = SlowFetcher(delay: 0.6)
        let lookup = UnknownUserLookup(fetcher: fetcher, timeout: .milliseconds(100), maxInFlight: 2)
        let (first, seconds) = measure { lookup.lookUp(bundleId: "b", transactionId: "1") }
        #expect(first == .timedOut && seconds < 0.4)
        #expect(lookup.lookUp(bundleId: "b", transactionId: "1") == .skipped, "looked up recently")
        #expect(lookup.lookUp(bundleId: "b", transactionId: "2") == .timedOut)
        #expect(lookup.lookUp(bundleId: "b", transactionId: "3") == .skipped, "two fetches already in flight")
        Thread.sleep(forTimeInterval: 0.7)
        #expect(fetcher.calls.load(ordering: .relaxed) == 2)
        let quick = UnknownUserLookup(fetcher: SlowFetcher(delay: 0), timeout: .seconds(1))
        #expect(quick.lookUp(bundleId: "b", transactionId: "4") == .fetched)
    }
}
