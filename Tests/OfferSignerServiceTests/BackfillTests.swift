import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Synchronization
import Testing

/// `appstore backfill` through the mock App Store: thousands of customers, Apple's failures,
/// the rate limit, reruns and interruptions.
@Suite("Backfill from the App Store Server API")
struct BackfillTests {
    static func lines(_ text: [String]) -> [LineReader.Line] { text.map { .text($0) } }

    @Test("2,000 customers with injected failures: each stored once, the summary right, within the rate; a rerun is a no-op, then retries only the failed")
    func thousands() throws {
        let rate = 1500.0
        let harness = try AppStoreAPIHarness(requestsPerSecond: rate)
        try harness.env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 60)))
        var firstIds: [String] = []
        var secondIds: [String] = []
        for index in 0..<2000 {
            let ids = harness.addCustomer(user: "user-\(index)", firstId: 1_000_000 + Int64(index) * 10, months: 2,
                                          lapsedDays: index % 4 == 0 ? -10 : 100, consumable: index % 100 == 0)
            firstIds.append(ids[0])
            if index % 40 == 0 { secondIds.append(ids[1]) }
        }
        // Customers whose every history request fails, and customers whose data is not signed by Apple's chain.
        let failing = (1...10).map { String(1_000_000 + $0 * 10 * 7) }  // customers 7, 14, … 70: none has a second ID in the input
        for id in failing { harness.store.failAlways(transactionId: id, with: .serverError()) }
        let forged = (0..<5).map { index -> String in
            harness.addCustomer(user: "forged-\(index)", firstId: 5_000_000 + Int64(index) * 10, key: try! P256PrivateKey.generate())[0]
        }
        let unknown = (0..<20).map { String(9_000_000 + $0) }
        // Transient failures, each answered once and then retried: 5xx, 429 with Apple's Retry-After in milliseconds.
        harness.store.inject(Array(repeating: .serverError(), count: 12), into: "history")
        harness.store.inject(Array(repeating: .rateLimited(after: .milliseconds(30)), count: 5), into: "statuses")

        var input = firstIds + forged + unknown + secondIds
        input.insert(contentsOf: ["# exported 2027-01-15", "", firstIds[3], "not-a-number"], at: 100)
        let parsed = HistoryBackfill.read(Self.lines(input))
        #expect(parsed.transactionIds.count == 2000 + 5 + 20 + 50 && parsed.repeated == 1 && parsed.invalid.count == 1)

        let started = ContinuousClock.now
        let summary = try harness.backfill().run(parsed)
        let elapsed = ContinuousClock.now - started

        #expect(summary.fetched + summary.covered == 2000 - failing.count + 50, "every good ID is fetched or covered")
        #expect(summary.covered >= 1 && summary.fetched >= 2000 - failing.count)
        #expect(summary.notFound == 20)
        #expect(summary.failedCount == failing.count + forged.count + 1)
        let reasons = Dictionary(summary.failures.compactMap { failure in failure.transactionId.map { ($0, failure.reason) } }) { a, _ in a }
        #expect(failing.allSatisfy { reasons[$0]?.contains("answered 500") == true })
        #expect(forged.allSatisfy { reasons[$0]?.contains("signedTransactions[0]") == true })
        #expect(summary.failures.contains { $0.line == 104 && $0.reason.contains("not a transaction ID") })
        #expect(summary.ignored == 20, "the consumables of 20 customers are verified but not stored")
        #expect(!summary.interrupted && summary.remaining == 0)

        // Everything stored once: 2 transactions and 1 renewal per good customer, nothing of the forged or failing ones.
        let good = 2000 - failing.count
        #expect(try harness.count("SELECT COUNT(*) FROM transactions") == good * 2)
        #expect(try harness.count("SELECT COUNT(*) FROM renewals") == good)
        #expect(try harness.count("SELECT COUNT(*) FROM transactions WHERE user_id LIKE 'forged-%'") == 0)
        #expect(summary.accepted == good * 3, "history and renewal stored; the statuses' copy of the latest transaction is a duplicate")
        #expect(summary.duplicates == good)

        // Held to the rate: requests / rate is a floor on the time taken.
        let requests = harness.store.requests.count
        #expect(Double(requests) / rate <= elapsed.seconds + 0.05, "\(requests) requests in \(elapsed)")
        #expect(requests >= good * 2 + 12 + 5)

        // And eligibility follows: a lapsed customer may have the offer, an active one may not.
        #expect(harness.verdicts("user-1")["winback"] == [])
        #expect(harness.verdicts("user-4")["winback"]?.contains("requireLapsed") == true)

        // A rerun is a no-op for everything done; only the failed IDs are tried again (and fail again).
        harness.store.clearRequests()
        let rerun = try harness.backfill().run(parsed)
        #expect(rerun.alreadyDone == 2000 + 20 + 50 - failing.count)
        #expect(rerun.fetched == 0 && rerun.covered == 0 && rerun.accepted == 0)
        #expect(rerun.failedCount == failing.count + forged.count + 1)
        let asked = Set(harness.store.requests.compactMap(\.endpoint?.transactionId))
        #expect(asked == Set(failing + forged))

        // Once Apple answers, the next run completes them.
        harness.store.clearStandingFaults()
        let last = try harness.backfill().run(HistoryBackfill.read(Self.lines(failing)))
        #expect(last.fetched == failing.count && last.complete)
        #expect(try harness.count("SELECT COUNT(*) FROM renewals") == 2000)
    }

    @Test("an interrupted run stores what it finished and the next run does only the rest")
    func interruptedRunResumes() throws {
        let harness = try AppStoreAPIHarness()
        let ids = (0..<300).map { harness.addCustomer(user: "u\($0)", firstId: 2_000_000 + Int64($0) * 10)[0] }
        let input = HistoryBackfill.read(Self.lines(ids))
        let stop = Atomic<Bool>(false)
        let first = try harness.backfill(workers: 4).run(input, shouldStop: { stop.load(ordering: .relaxed) }) { progress in
            if progress.done >= 100 { stop.store(true, ordering: .relaxed) }
        }
        #expect(first.interrupted && first.remaining > 0 && first.fetched + first.remaining == 300)
        #expect(try harness.count("SELECT COUNT(*) FROM renewals") == first.fetched)
        let done = Set(harness.store.requests.compactMap(\.endpoint?.transactionId))
        #expect(done.count == first.fetched)

        harness.store.clearRequests()
        let second = try harness.backfill(workers: 4).run(input)
        #expect(second.alreadyDone == first.fetched && second.fetched == first.remaining && second.complete)
        let asked = Set(harness.store.requests.compactMap(\.endpoint?.transactionId))
        #expect(asked.isDisjoint(with: done), "nothing done before is fetched again")
        #expect(try harness.count("SELECT COUNT(*) FROM renewals") == 300)
        #expect(try harness.count("SELECT COUNT(*) FROM transactions") == 900)
    }

    @Test("a refused key stops the run at once with a message naming the key, instead of failing every ID")
    func refusedKeyStops() throws {
        let harness = try AppStoreAPIHarness()
        let other = MockAppStore(jwt: MockAppStoreJWT(keyId: "OTHERKEY", issuerId: "issuer-1", bundleId: TestEnvironment.bundleId,
                                                      publicKey: try P256PrivateKey.generate().publicKey))
        let server = try other.start()
        defer { server.stop() }
        let clients = try AppStoreAPIClients(configuration: try KeyConfiguration.load(path: harness.env.keysPath), options: .init(
            environments: [.production], baseURL: server.baseURL, requestsPerSecond: 1000, retry: AppStoreAPIHarness.retry))
        let backfill = HistoryBackfill(sync: CustomerHistorySync(clients: clients, ingestor: harness.ingestor), progressStore: harness.syncStore,
                                       bundleId: TestEnvironment.bundleId, clock: harness.env.clock)
        let summary = try backfill.run(HistoryBackfill.read(Self.lines((0..<500).map { String(3_000_000 + $0) })))
        #expect(summary.abortReason?.contains("key ACTIVEKEY1") == true)
        #expect(summary.interrupted && summary.remaining > 400 && other.requests.count < 100)
    }

    @Test("a transaction only the sandbox knows is fetched there, after Production says 4040010")
    func sandboxFallback() throws {
        let harness = try AppStoreAPIHarness()
        let sandbox = MockAppStore(jwt: AppStoreAPIHarness.jwt, environment: "Sandbox")
        let sandboxServer = try sandbox.start()
        defer { sandboxServer.stop() }
        sandbox.add(MockCustomer(transactionIds: ["4000000"], signedTransactions: [
            TestSignedData.transaction(id: "4000000", original: "4000000", purchased: harness.env.now.addingTimeInterval(-90 * AppStoreAPIHarness.day),
                                       appAccountToken: "tester", environment: "Sandbox"),
        ]))
        let clients = try AppStoreAPIClients(configuration: try KeyConfiguration.load(path: harness.env.keysPath), options: .init(
            environments: [.production, .sandbox], baseURLs: [.production: harness.server.baseURL, .sandbox: sandboxServer.baseURL],
            requestsPerSecond: 1000, retry: AppStoreAPIHarness.retry))
        let sync = CustomerHistorySync(clients: clients, ingestor: harness.ingestor)
        let fetched = try sync.fetch(bundleId: TestEnvironment.bundleId, transactionId: "4000000")
        #expect(fetched.environment == .sandbox && fetched.userIds == ["tester"] && fetched.transactionCount == 1)
        #expect(harness.store.requests.map(\.request.path) == ["/inApps/v2/history/4000000"])
        #expect(throws: CustomerHistorySync.Failure.self) { try sync.fetch(bundleId: TestEnvironment.bundleId, transactionId: "4000001") }
    }

    @Test("an app transaction ID is backfilled like any transaction ID: the history by it, the statuses by a transaction of that history; with no subscription, Get App Transaction Info confirms it")
    func appTransactionId() throws {
        let harness = try AppStoreAPIHarness()
        let ids = harness.addCustomer(user: "downloaded", firstId: 7_000_000, months: 2)
        // The same customer, known by the app download: history and app transaction info accept it, statuses do not.
        let transactions = (0..<2).map { index in
            TestSignedData.transaction(id: ids[index], original: ids[0], purchased: harness.env.now.addingTimeInterval(Double(index - 3) * 30 * AppStoreAPIHarness.day),
                                       appAccountToken: "downloaded", signed: harness.env.now.addingTimeInterval(-AppStoreAPIHarness.day))
        }
        let appTransaction = TestSignedData.sign([
            "receiptType": "Production", "appAppleId": TestSignedData.appAppleId, "bundleId": TestSignedData.bundleId,
            "applicationVersion": "7.1", "receiptCreationDate": TestSignedData.ms(harness.env.now.addingTimeInterval(-3600)),
            "originalPurchaseDate": TestSignedData.ms(harness.env.now.addingTimeInterval(-400 * AppStoreAPIHarness.day)),
            "originalApplicationVersion": "1.0", "appTransactionId": "700000000001", "originalPlatform": "iOS",
        ])
        harness.store.add(MockCustomer(transactionIds: ["7000100"], signedTransactions: transactions, statuses: [],
                                       appTransactionId: "700000000001", signedAppTransactionInfo: appTransaction))
        harness.store.add(MockCustomer(transactionIds: [], signedTransactions: [], appTransactionId: "700000000002",
                                       signedAppTransactionInfo: appTransaction))
        let sync = CustomerHistorySync(clients: harness.clients, ingestor: harness.ingestor)

        harness.store.clearRequests()
        let fetched = try sync.fetch(bundleId: TestEnvironment.bundleId, transactionId: "700000000001")
        #expect(fetched.userIds == ["downloaded"] && fetched.transactionCount == 3 && fetched.renewalCount == 1, "two periods, and the latest with its renewal info from the statuses")
        #expect(harness.store.requests.map(\.request.path) == ["/inApps/v2/history/700000000001", "/inApps/v1/subscriptions/\(ids[0])"],
                "statuses are asked with a transaction of the history, never the app transaction ID")

        harness.store.clearRequests()
        let nothing = try sync.fetch(bundleId: TestEnvironment.bundleId, transactionId: "700000000002")
        #expect(nothing.transactionCount == 0 && nothing.renewalCount == 0)
        #expect(harness.store.requests.map(\.request.path) == ["/inApps/v2/history/700000000002",
                                                               "/inApps/v1/transactions/appTransactions/700000000002"])
    }

    @Test("a history that pages for ever is refused at the per-customer limit, nothing of it stored; the run goes on with the next ID")
    func endlessHistory() throws {
        let harness = try AppStoreAPIHarness()
        let good = harness.addCustomer(user: "fine", firstId: 7_100_000)
        let page = (0..<20).map { index in
            TestSignedData.transaction(id: String(7_200_000 + index), original: "7200000",
                                       purchased: harness.env.now.addingTimeInterval(Double(index - 30) * 30 * AppStoreAPIHarness.day),
                                       appAccountToken: "endless")
        }
        harness.store.add(MockCustomer(transactionIds: ["7200000"], signedTransactions: page, endlessHistory: true))
        var sync = CustomerHistorySync(clients: harness.clients, ingestor: harness.ingestor)
        sync.limits = HistoryFetchLimits(maxTransactions: 200)
        #expect {
            try sync.fetch(bundleId: TestEnvironment.bundleId, transactionId: "7200000")
        } throws: { error in
            "\(error)".contains("more than 200 transactions")
        }
        #expect(harness.store.requests.count == 11, "ten pages of 20 held, the eleventh over the limit, then stopped")

        var backfill = HistoryBackfill(sync: sync, progressStore: harness.syncStore, bundleId: TestEnvironment.bundleId, clock: harness.env.clock)
        backfill.workers = 2
        let summary = try backfill.run(HistoryBackfill.read(Self.lines(["7200000", good[0]])))
        #expect(summary.fetched == 1 && summary.failedCount == 1)
        #expect(summary.failures.first?.reason.contains("too large") == true)
        #expect(try harness.count("SELECT COUNT(*) FROM transactions WHERE user_id = 'endless'") == 0)
        #expect(try harness.count("SELECT COUNT(*) FROM transactions WHERE user_id = 'fine'") == 3)
    }

    @Test("progress: a bar on a terminal, plain lines otherwise")
    func progress() {
        let progress = BackfillProgress(total: 3000, done: 1200, errors: 3, elapsed: .seconds(60))
        #expect(progress.bar(width: 10) == "[####------] 1200/3000 40%  20.0/s  ETA 1m30s  errors 3")
        #expect(progress.line == "backfill: 1200/3000 done (40%), 20.0/s, ETA 1m30s, 3 errors")
        #expect(BackfillProgress(total: 10, done: 0, errors: 0, elapsed: .zero).line.contains("ETA ?"))
        #expect(BackfillProgress.duration(7300) == "2h01m")
        let written = Mutex<[String]>([])
        var display = ProgressDisplay(isTerminal: false, every: .seconds(3600)) { text in written.withLock { $0.append(text) } }
        for done in 1...50 { display.show(BackfillProgress(total: 50, done: done, errors: 0, elapsed: .seconds(done))) }
        display.finish()
        #expect(written.withLock { $0 } == ["backfill: 1/50 done (2%), 1.0/s, ETA 49s, 0 errors\n",
                                            "backfill: 50/50 done (100%), 1.0/s, ETA 0s, 0 errors\n"])
        var terminal = ProgressDisplay(isTerminal: true, every: .seconds(10)) { text in written.withLock { $0 = [text] } }
        terminal.show(progress)
        #expect(written.withLock { $0 }.first?.hasPrefix("\r[") == true)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
