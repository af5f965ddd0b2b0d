import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import OfferSignerTestSupport
import Synchronization
import Testing

/// Several `serve` processes on one PostgreSQL database, and what happens to them when one is
/// killed or the database stops under load. Real processes, a real cluster (the shared test
/// cluster, or one of the test's own where the server is stopped).
@Suite("Several instances on PostgreSQL", .serialized)
struct PostgreSQLInstancesTests {
    static func signBody(_ user: String) -> String {
        #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "\#(user)"}"#
    }

    /// A fresh database with the demo offer (quota `quota`), and the settings of `serve` for it.
    final class Deployment {
        let environment: TestEnvironment
        let url: String
        /// The database's name on the cluster (for `psql`).
        let name: String
        let settings: [String: String]
        private let cleanup: () -> Void

        init(cluster: TestPostgreSQLCluster, quota: Int? = nil) throws {
            environment = try TestEnvironment()
            let name = try cluster.createDatabase()
            self.name = name
            url = cluster.url(database: name)
            cleanup = { cluster.dropDatabase(name) }
            let stores = try Stores.open(try DatabaseLocation(url), followOfferChanges: false)
            defer { stores.close() }
            _ = try stores.offers.put(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: quota)), by: "test", at: Date())
            settings = [
                "OFFER_SIGNER_KEYS": environment.keysPath, "OFFER_SIGNER_DATABASE": url,
                "OFFER_SIGNER_APPLE_ROOTS": TestAppStore.folder.appendingPathComponent("root.pem").path,
                "OFFER_SIGNER_ENVIRONMENTS": "Production,Sandbox", "OFFER_SIGNER_LOG_LEVEL": "error",
                "OFFER_SIGNER_RATE_SIGN_PER_KEY": "off", "OFFER_SIGNER_RATE_SIGN_PER_USER": "off",
                "OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS": "off",
            ]
        }

        deinit { cleanup() }

        func serve() throws -> ServeProcess {
            try ServeProcess(environment: settings, logFolder: environment.folder)
        }

        /// The stores, opened beside the instances (as an auditor would).
        func stores() throws -> Stores {
            try Stores.open(try DatabaseLocation(url), creating: false, followOfferChanges: false)
        }
    }

    /// Every answer of a load run: status, nonce (on 200) and time taken.
    final class Answers: Sendable {
        private let storage = Mutex<[(status: Int, nonce: String?, seconds: Double, at: Date)]>([])

        func add(_ answer: TestHTTP.Answer) {
            let nonce = answer.status == 200 ? answer.json["nonce"] as? String : nil
            storage.withLock { $0.append((answer.status, nonce, answer.seconds, Date())) }
        }

        var all: [(status: Int, nonce: String?, seconds: Double, at: Date)] { storage.withLock { $0 } }
        var nonces: [String] { all.compactMap(\.nonce) }
        func count(_ status: Int) -> Int { all.filter { $0.status == status }.count }
    }

    /// Signs on `ports` from `threads` threads for `seconds`, a new user each request.
    static func load(ports: [Int], threads: Int, seconds: Double, into answers: Answers) -> DispatchGroup {
        let group = DispatchGroup()
        let end = Date().addingTimeInterval(seconds)
        for thread in 0..<threads {
            group.enter()
            Thread {
                var n = 0
                while Date() < end {
                    let port = ports[(thread + n) % ports.count]
                    answers.add(TestHTTP.send(port: port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                                              body: signBody("load-\(thread)-\(n)"), timeout: 15))
                    n += 1
                }
                group.leave()
            }.start()
        }
        return group
    }

    @Test("two instances: the daily quota holds across them (40 parallel requests, quota 3, exactly 3 signed), nonces are unique, one intact chain, a notification stored once, an offer change in force on the other within 2 s")
    func twoInstances() throws {
        let cluster = try TestPostgreSQLCluster.shared.get()
        let deployment = try Deployment(cluster: cluster, quota: 3)
        let a = try deployment.serve()
        let b = try deployment.serve()

        let answers = Answers()
        let ports = (a.port, b.port)
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            answers.add(TestHTTP.send(port: index % 2 == 0 ? ports.0 : ports.1, "POST", "/v1/offers/sign",
                                      token: TestEnvironment.tokens[.client], body: Self.signBody("quota-user")))
        }
        #expect(answers.count(200) == 3, "\(answers.all.map(\.status))")
        #expect(answers.count(429) == 37)

        let load = Answers()
        #expect(Self.load(ports: [a.port, b.port], threads: 6, seconds: 1.5, into: load).wait(timeout: .now() + 30) == .success)
        #expect(load.count(200) == load.all.count && load.count(200) > 20)
        var nonces = answers.nonces + load.nonces
        #expect(Set(nonces).count == nonces.count, "nonces are unique across the instances")

        // The same notification delivered to both at once is stored once.
        let signed = TestAppStore.notification(transaction: nil, signed: Date())
        let body = #"{"signedPayload": "\#(signed)"}"#
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let answer = TestHTTP.send(port: index == 0 ? ports.0 : ports.1, "POST", "/v1/notifications/appstore", body: body)
            outcomes.withLock { $0.append("\(answer.status) \(answer.json["status"] as? String ?? answer.body)") }
        }
        #expect(outcomes.withLock { $0.sorted() } == ["200 duplicate", "200 stored"])

        // An offer disabled through A comes into force on B (NOTIFY, else B's 1 s poll): waited
        // for, with a deadline that only catches a change B never sees.
        let disabled = TestHTTP.send(port: a.port, "DELETE", "/v1/admin/offers/winback", token: TestEnvironment.tokens[.marketing])
        #expect(disabled.status == 200)
        let changedAt = Date()
        var refusedOnB: Double?
        while Date().timeIntervalSince(changedAt) < 60 {
            let answer = TestHTTP.send(port: b.port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                                       body: Self.signBody("after-change"))
            guard answer.status == 200, let nonce = answer.json["nonce"] as? String else {
                refusedOnB = Date().timeIntervalSince(changedAt)
                break
            }
            nonces.append(nonce)
            usleep(20_000)
        }
        _ = try #require(refusedOnB, "B still signs the disabled offer after 60 s")

        let stores = try deployment.stores()
        defer { stores.close() }
        let report = try stores.signatures.verifyIntegrity()
        #expect(report.ok && report.records == nonces.count, "\(report)")
        for nonce in nonces.prefix(50) { #expect(try stores.signatures.signature(nonce: nonce) != nil) }
    }

    @Test("two instances: a retention rule put through one answers on the other at once; one App Store request delivered to both at once gets one answer, recorded once")
    func retentionAcrossInstances() throws {
        let cluster = try TestPostgreSQLCluster.shared.get()
        let deployment = try Deployment(cluster: cluster)
        let a = try deployment.serve()
        let b = try deployment.serve()
        let user = "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"
        let now = Date()
        let transaction = TestAppStore.transaction(id: "sub1-0", original: "sub1", user: user, purchased: now - 90 * 86_400,
                                                   expires: now - 60 * 86_400, signed: now - 60)
        let notified = TestHTTP.send(port: a.port, "POST", "/v1/notifications/appstore",
                                     body: #"{"signedPayload": "\#(TestAppStore.notification(transaction: transaction, signed: now - 60))"}"#)
        #expect(notified.status == 200, "\(notified.body)")
        let rule = #"{"ruleId": "save", "messageIdentifier": "11111111-1111-4111-8111-111111111111", "offerId": "winback"}"#
        let put = TestHTTP.send(port: a.port, "PUT", "/v1/admin/retention-rules/save", token: TestEnvironment.tokens[.marketing], body: rule)
        #expect(put.status == 201, "\(put.body)")

        @Sendable func ask(_ port: Int, _ identifier: String) -> TestHTTP.Answer {
            let signed = TestAppStore.realtimeRequest(original: "sub1", requestIdentifier: identifier, signed: Date() - 1)
            return TestHTTP.send(port: port, "POST", "/v1/retention/appstore", body: #"{"signedPayload": "\#(signed)"}"#)
        }
        let onB = ask(b.port, UUID().uuidString)
        #expect(onB.status == 200 && onB.json["promotionalOffer"] != nil, "the rule put through A answers on B: \(onB.body)")

        let ports = (a.port, b.port)
        for _ in 0..<5 {
            let identifier = UUID().uuidString
            let bodies = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let answer = ask(index == 0 ? ports.0 : ports.1, identifier)
                bodies.withLock { $0.append("\(answer.status) \(answer.body)") }
            }
            let both = bodies.withLock { $0 }
            #expect(Set(both).count == 1 && both[0].hasPrefix("200 {\"promotionalOffer\""), "\(both)")
        }
        let stores = try deployment.stores()
        defer { stores.close() }
        #expect(try stores.signatures.verifyIntegrity().ok)
        #expect(try stores.rules.rule(RetentionRule.self, bundleId: TestEnvironment.bundleId, ruleId: "save")?.version == 1)
    }

    @Test("kill -9 of one instance under load: every signature a client received is in the log, the chain is intact, the other instance goes on")
    func killedInstance() throws {
        let cluster = try TestPostgreSQLCluster.shared.get()
        let deployment = try Deployment(cluster: cluster)
        let a = try deployment.serve()
        let b = try deployment.serve()
        let answers = Answers()
        let running = Self.load(ports: [a.port, b.port], threads: 8, seconds: 3, into: answers)
        Thread.sleep(forTimeInterval: 1)
        let killedAt = Date()
        a.kill()
        #expect(running.wait(timeout: .now() + 40) == .success)

        #expect(answers.all.allSatisfy { $0.status == 200 || $0.status == 0 }, "\(Set(answers.all.map(\.status)))")
        #expect(answers.all.contains { $0.status == 200 && $0.at > killedAt.addingTimeInterval(0.5) }, "B signs after A died")
        let stores = try deployment.stores()
        defer { stores.close() }
        for nonce in answers.nonces { #expect(try stores.signatures.signature(nonce: nonce) != nil, "\(nonce) was received but not logged") }
        let report = try stores.signatures.verifyIntegrity()
        #expect(report.ok, "\(report.problem ?? "")")
        #expect(report.records >= answers.nonces.count)
        // A restarted instance carries on the same chain.
        let restarted = try deployment.serve()
        #expect(TestHTTP.send(port: restarted.port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                              body: Self.signBody("after-restart")).status == 200)
        #expect(try stores.signatures.verifyIntegrity().ok)
    }

    @Test("PostgreSQL stopped (immediate) under load and started again, then frozen: 503s, never a 500 or a wait past the request timeout; /readyz not ready, then ready; signing resumes by itself; every signature received is logged")
    func databaseRestart() throws {
        let cluster = try TestPostgreSQLCluster.startPrivate()
        defer { cluster.destroy() }
        let deployment = try Deployment(cluster: cluster)
        let a = try deployment.serve()
        let answers = Answers()
        let running = Self.load(ports: [a.port], threads: 6, seconds: 7, into: answers)
        Thread.sleep(forTimeInterval: 1)
        try cluster.stopImmediately()
        let stoppedBy = Date()
        Thread.sleep(forTimeInterval: 0.5)
        let readyWhileDown = TestHTTP.send(port: a.port, "GET", "/readyz", timeout: 10)
        Thread.sleep(forTimeInterval: 1.5)
        let startingAt = Date()
        try cluster.startServer()
        #expect(running.wait(timeout: .now() + 60) == .success)

        #expect(readyWhileDown.status == 503, "\(readyWhileDown.body)")
        let statuses = Set(answers.all.map(\.status))
        #expect(statuses.isSubset(of: [200, 503]), "\(statuses)")
        #expect(answers.count(503) > 0)
        #expect(answers.all.map(\.seconds).max() ?? 0 < 10, "no answer waits past the request timeout")
        // What the service recorded, not when a client happened to read its answer: a signature
        // committed just before the stop may reach its client after it on a loaded machine. A 200
        // read before the server was started again must be a record the log holds, signed before the
        // server was stopped (nothing can commit while it is down); and the log holds signatures
        // made after the start (signing resumed by itself).
        let outage = try deployment.stores()
        defer { outage.close() }
        for answer in answers.all where answer.status == 200 && answer.at < startingAt {
            let logged = try #require(try outage.signatures.signature(nonce: answer.nonce ?? ""), "a 200 without a logged record")
            #expect(Double(logged.record.recordedAt) / 1000 <= stoppedBy.timeIntervalSince1970,
                    "\(answer.nonce ?? "") was signed while the database was down")
        }
        let signedAfterStart = try answers.nonces.compactMap { try outage.signatures.signature(nonce: $0) }
            .filter { Double($0.record.recordedAt) / 1000 > startingAt.timeIntervalSince1970 }
        #expect(!signedAfterStart.isEmpty, "signing resumes by itself")

        var ready = TestHTTP.send(port: a.port, "GET", "/readyz")
        let deadline = Date().addingTimeInterval(10)
        while ready.status != 200 && Date() < deadline {
            usleep(100_000)
            ready = TestHTTP.send(port: a.port, "GET", "/readyz")
        }
        #expect(ready.status == 200)

        // A server that answers nothing (frozen: its connections stay open) costs at most the
        // statement deadlines: 503s within the request timeout, then signing resumes.
        let frozen = Answers()
        let frozenLoad = Self.load(ports: [a.port], threads: 4, seconds: 6, into: frozen)
        Thread.sleep(forTimeInterval: 0.5)
        cluster.signalServer(SIGSTOP)
        Thread.sleep(forTimeInterval: 4)
        cluster.signalServer(SIGCONT)
        #expect(frozenLoad.wait(timeout: .now() + 60) == .success)
        #expect(Set(frozen.all.map(\.status)).isSubset(of: [200, 503]), "\(Set(frozen.all.map(\.status)))")
        #expect(frozen.all.map(\.seconds).max() ?? 0 < 10, "no answer waits past the 10 s request timeout")
        #expect(frozen.count(503) > 0)
        #expect(TestHTTP.send(port: a.port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                              body: Self.signBody("after-thaw")).status == 200)

        let stores = try deployment.stores()
        defer { stores.close() }
        for nonce in answers.nonces + frozen.nonces {
            #expect(try stores.signatures.signature(nonce: nonce) != nil, "\(nonce) was received but not logged")
        }
        #expect(try stores.signatures.verifyIntegrity().ok)
    }
}
