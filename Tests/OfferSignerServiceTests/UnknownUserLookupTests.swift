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

    /// `clientTimeout`: each App Store request's own timeout (the lookup's by default).
    func harness(lookup: Bool, timeout: Duration = .seconds(2), clientTimeout: Duration? = nil,
                 watch: ((any HistoryFetcher) -> any HistoryFetcher)? = nil) throws -> AppStoreAPIHarness {
        let harness = try AppStoreAPIHarness()
        try harness.env.putOffer(Self.lapsedOffer)
        if lookup {
            let sync = CustomerHistorySync(clients: harness.clients, ingestor: harness.ingestor,
                                           policy: (timeout: clientTimeout ?? timeout, retry: .none))
            harness.env.unknownUserLookup = UnknownUserLookup(fetcher: watch?(sync) ?? sync, timeout: timeout)
        }
        return harness
    }

    /// A fetcher around another that tells when its fetch has ended, and how.
    final class WatchedFetcher: HistoryFetcher {
        let inner: any HistoryFetcher
        let ended = DispatchSemaphore(value: 0)
        let outcome = Mutex<(error: String?, deadline: ContinuousClock.Instant)?>(nil)
        init(_ inner: any HistoryFetcher) { self.inner = inner }
        func fetchHistory(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant) throws {
            do {
                try inner.fetchHistory(bundleId: bundleId, transactionId: transactionId, deadline: deadline)
                outcome.withLock { $0 = (nil, deadline) }
                ended.signal()
            } catch {
                outcome.withLock { $0 = ("\(error)", deadline) }
                ended.signal()
                throw error
            }
        }
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
        // A lookup timeout no busy machine reaches: the 200 itself shows the fetch came first.
        let harness = try harness(lookup: true, timeout: .seconds(60))
        harness.addCustomer(user: "old-subscriber", firstId: 8_000_000)
        let response = sign(harness.env, user: "Old-Subscriber", transactionId: "8000002")
        #expect(response.status == 200, "\(response.json)")
        #expect(harness.store.requests.map(\.request.path) == ["/inApps/v2/history/8000002", "/inApps/v1/subscriptions/8000002"])
        #expect(sign(harness.env, user: "old-subscriber", transactionId: "8000002").status == 200)
        #expect(harness.store.requests.count == 2, "the user is known now")
    }

    @Test("on: a history that pages for ever stops at the request's deadline: no fetch goes on once the request was answered")
    func endlessHistoryStopsAtDeadline() throws {
        var watched: WatchedFetcher?
        let harness = try harness(lookup: true, timeout: .milliseconds(400)) { inner in
            let fetcher = WatchedFetcher(inner)
            watched = fetcher
            return fetcher
        }
        let fetcher = try #require(watched)
        let ids = harness.addCustomer(user: "endless", firstId: 8_200_000)
        harness.store.add(MockCustomer(transactionIds: ["8200900"], signedTransactions: [
            TestSignedData.transaction(id: ids[0], original: ids[0], purchased: harness.env.now.addingTimeInterval(-90 * 86_400),
                                       appAccountToken: "endless"),
        ], endlessHistory: true))
        let response = sign(harness.env, user: "endless", transactionId: "8200900")
        #expect(response.code == "not_eligible", "answered on what is known when the fetch runs late")
        // The fetch ends by itself, at its deadline (the 60 s only catch one that pages for
        // ever); once it has returned, no request of it can follow.
        #expect(fetcher.ended.wait(timeout: .now() + 60) == .success, "the fetch of an endless history never stopped")
        let ended = try #require(fetcher.outcome.withLock { $0 })
        #expect(ended.error?.contains("deadline passed") == true, "stopped by the request's deadline, not by a page limit: \(ended.error ?? "no error")")
        let afterEnd = harness.store.requests.count
        #expect(afterEnd >= 1)
        #expect(harness.store.requests.count == afterEnd)
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
        // Apple answers after a minute and the client would wait that long; the request waits
        // only the lookup's 500 ms (the 45 s ceiling only catches a request that waited for Apple).
        let harness = try harness(lookup: true, timeout: .milliseconds(500), clientTimeout: .seconds(120))
        harness.addCustomer(user: "patient", firstId: 8_200_000)
        harness.store.inject([.slow(.seconds(60))], into: "history")
        let (response, seconds) = measure { sign(harness.env, user: "patient", transactionId: "8200000") }
        #expect(response.code == "not_eligible")
        #expect(seconds >= 0.49 && seconds < 45, "waited \(seconds) s")
    }

    /// A fetcher that runs until the test opens its gate, counting its calls and its ends.
    final class GatedFetcher: HistoryFetcher {
        let calls = Atomic<Int>(0)
        let gate = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        func fetchHistory(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant) throws {
            calls.add(1, ordering: .relaxed)
            _ = gate.wait(timeout: .now() + 60)  // a lookup that waited for its fetch fails instead of hanging
            ended.signal()
        }
    }

    /// A fetcher that returns at once.
    struct QuickFetcher: HistoryFetcher {
        func fetchHistory(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant) throws {}
    }

    @Test("the lookup waits at most its timeout, lets the fetch finish in the background, and caps fetches in flight")
    func lookupBounds() throws {
        // The fetches cannot end before the gate opens: a lookup that returns meanwhile did not
        // wait for its fetch, whatever the machine's speed.
        let fetcher = GatedFetcher()
        let lookup = UnknownUserLookup(fetcher: fetcher, timeout: .milliseconds(100), maxInFlight: 2)
        let (first, seconds) = measure { lookup.lookUp(bundleId: "b", transactionId: "1") }
        #expect(first == .timedOut && seconds >= 0.09)
        #expect(lookup.lookUp(bundleId: "b", transactionId: "1") == .skipped, "looked up recently")
        #expect(lookup.lookUp(bundleId: "b", transactionId: "2") == .timedOut)
        #expect(lookup.lookUp(bundleId: "b", transactionId: "3") == .skipped, "two fetches already in flight")
        #expect(fetcher.calls.load(ordering: .relaxed) == 2)
        fetcher.gate.signal()
        fetcher.gate.signal()
        for _ in 0..<2 { #expect(fetcher.ended.wait(timeout: .now() + 60) == .success, "the fetch went on in the background to its end") }
        #expect(fetcher.calls.load(ordering: .relaxed) == 2)
        let quick = UnknownUserLookup(fetcher: QuickFetcher(), timeout: .seconds(60))
        #expect(quick.lookUp(bundleId: "b", transactionId: "4") == .fetched)
    }
}
