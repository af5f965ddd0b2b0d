import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Synchronization
import Testing

@Suite("Availability: audits never starve signing; readiness follows the log")
struct AvailabilityTests {
    static let signBody = #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "fast-user"}"#

    /// When each of several concurrent jobs finished, and whether it found what it should.
    final class Finishes: Sendable {
        private let times = Mutex<[String: (at: ContinuousClock.Instant, ok: Bool)]>([:])

        func done(_ name: String, ok: Bool = true) {
            let now = ContinuousClock.now
            times.withLock { $0[name] = (now, ok) }
        }
        func time(_ name: String) -> ContinuousClock.Instant? { times.withLock { $0[name]?.at } }
        func ok(_ name: String) -> Bool { times.withLock { $0[name]?.ok ?? false } }
    }

    @Test("a sign request answers while integrity walks that check every signature hold every audit connection")
    func signingStaysFastDuringIntegrityScans() throws {
        // Two connections per pool: were the pools one, the two walks would hold both, and the
        // sign request would wait for a walk to end.
        let env = try TestEnvironment(readers: 2, auditReaders: 2)
        try env.putOffer(TestEnvironment.demoRule())
        let app = try #require(env.keyRing.current.apps[TestEnvironment.bundleId])
        try ChainForgery.append(try ChainForgery.signedRecords(20_000, signer: app.signer, bundleId: app.bundleId,
                                                               productId: TestEnvironment.product), to: env.database)
        let router = env.router
        let finishes = Finishes()
        let gate = env.integrityRuns
        let walks = (0..<gate.limit).map { n in
            Thread {
                let response = router.respond(to: HTTPRequest(method: "GET", path: "/v1/audit/integrity", query: ["signatures": "true"],
                                                              headers: ["Authorization": "Bearer auditor-token"]))
                let report = TestResponse(response: response).json
                finishes.done("walk\(n)", ok: report["ok"] as? Bool == true && report["signaturesChecked"] as? Int == 20_000)
            }
        }
        walks.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(60)
        while gate.holders < gate.limit && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(gate.holders == gate.limit, "both walks are running")

        // A third walk is turned away at once rather than queued.
        let third = env.send("GET", "/v1/audit/integrity", role: .auditor)
        #expect(third.status == 503 && third.response.headers["Retry-After"] != nil)

        // Both walks hold the readers: a sign request still gets through, before either ends
        // (the order is what the pools promise; no wall-clock bound).
        let signed = env.send("POST", "/v1/offers/sign", json: Self.signBody)
        finishes.done("sign")
        #expect(signed.status == 200)

        while (finishes.time("walk0") == nil || finishes.time("walk1") == nil) && Date() < deadline.addingTimeInterval(120) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let signDone = try #require(finishes.time("sign"))
        for n in 0..<gate.limit {
            let walkDone = try #require(finishes.time("walk\(n)"))
            #expect(signDone < walkDone, "the sign request finished before walk \(n)")
            #expect(finishes.ok("walk\(n)"), "walk \(n) checked every signature and found the log intact")
        }
    }

    @Test("readyz turns not-ready when the last durable append failed and ready again once a write succeeds")
    func readinessFollowsTheLog() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ready-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try TestEnvironment.nearlyFullDatabase(at: folder.appendingPathComponent("r.sqlite").path)
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        let env = try TestEnvironment(signatures: log)
        try env.putOffer(TestEnvironment.demoRule())
        #expect(env.send("GET", "/readyz", role: nil).status == 200)
        var status = 200
        for n in 0..<2000 where status == 200 {
            status = env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "u\#(n)"}"#).status
        }
        #expect(status == 503, "the log filled up")
        let notReady = env.send("GET", "/readyz", role: nil)
        #expect(notReady.status == 503 && notReady.json["database"] as? String == "unavailable")
        #expect(!notReady.text.contains("SQLite"), "the open route does not show the cause")

        _ = try database.write { db in try db.scalar("PRAGMA max_page_count=100000") }
        // The next probe write (one a second) succeeds with no traffic; waited for, not slept on.
        let deadline = Date().addingTimeInterval(60)
        var ready = env.send("GET", "/readyz", role: nil).status
        while ready != 200 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            ready = env.send("GET", "/readyz", role: nil).status
        }
        #expect(ready == 200, "a probe write succeeded with no traffic")
        #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody).status == 200)
    }

    @Test("the gate lets `limit` callers in and turns the next away without running it")
    func gate() {
        let gate = ConcurrencyGate(limit: 1)
        let inner = gate.ifOpen { gate.ifOpen { "ran" } }
        #expect(inner == .some(nil))
        #expect(gate.ifOpen { "ran" } == "ran")
        #expect(gate.holders == 0)
    }
}
