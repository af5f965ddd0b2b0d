import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore
import OfferSignerTestSupport
import Synchronization
import Testing

/// `serve` instances on a highly available PostgreSQL (``TestPatroniCluster``: etcd, three
/// Patroni nodes) through a multi-host URL with `target_session_attrs=read-write`, across
/// failovers: nothing a client received is lost with a synchronous standby, a lost tail
/// (asynchronous replication) is refused as `chain_regressed` rather than appended over, and
/// `OFFER_SIGNER_REQUIRE_SYNC_REPLICA` holds signing while no synchronous standby is attached.
/// Timing is read from what the service recorded (the records' times), never bounded by the
/// wall clock; the unavailability each failover cost is printed (bench/README).
@Suite("High availability (Patroni)", .serialized)
struct HighAvailabilityTests {
    /// A database on the cluster with the demo offer, and the settings of `serve` for it.
    final class Deployment {
        let environment: TestEnvironment
        let cluster: TestPatroniCluster
        let url: String
        let settings: [String: String]

        init(cluster: TestPatroniCluster, extra: [String: String] = [:]) throws {
            self.cluster = cluster
            environment = try TestEnvironment()
            let url = cluster.url(database: try cluster.createDatabase())
            self.url = url
            // On a loaded machine the leader can change right after the cluster starts (its
            // leader key expires when Patroni misses its loop): the set-up waits for a primary.
            var lastError: (any Error)?
            let stored = HighAvailabilityTests.eventually(90) { () -> Bool? in
                do {
                    let stores = try Stores.open(try DatabaseLocation(url), followOfferChanges: false)
                    defer { stores.close() }
                    _ = try stores.offers.put(TestEnvironment.demoRule(), by: "test", at: Date())
                    return true
                } catch {
                    lastError = error
                    return nil
                }
            }
            guard stored == true else { throw lastError ?? ClusterError.failed(command: "set up the deployment", output: "no primary") }
            settings = [
                "OFFER_SIGNER_KEYS": environment.keysPath, "OFFER_SIGNER_DATABASE": url,
                "OFFER_SIGNER_APPLE_ROOTS": TestAppStore.folder.appendingPathComponent("root.pem").path,
                "OFFER_SIGNER_ENVIRONMENTS": "Production,Sandbox", "OFFER_SIGNER_LOG_LEVEL": "error",
                "OFFER_SIGNER_RATE_SIGN_PER_KEY": "off", "OFFER_SIGNER_RATE_SIGN_PER_USER": "off",
                "OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS": "off",
            ].merging(extra) { $1 }
        }

        func serve(ready: Bool = true) throws -> ServeProcess {
            try ServeProcess(environment: settings, logFolder: environment.folder, ready: ready)
        }

        /// The stores, opened beside the instances (as an auditor would), on the primary.
        func stores() throws -> Stores {
            try Stores.open(try DatabaseLocation(url), creating: false, followOfferChanges: false)
        }

        /// The stores on the primary once one takes connections for writing: right after a
        /// failover, Patroni names the new leader before its PostgreSQL has left recovery
        /// ('session is read-only' on every host), so this waits up to `seconds` for it.
        func storesOnPrimary(within seconds: Double = 60) throws -> Stores {
            var lastError: (any Error)?
            let opened = HighAvailabilityTests.eventually(seconds) { () -> Stores? in
                do {
                    return try stores()
                } catch {
                    lastError = error
                    return nil
                }
            }
            guard let opened else { throw lastError ?? ClusterError.failed(command: "open the stores", output: "no primary") }
            return opened
        }
    }

    /// Every answer of a load: which instance, status, nonce, problem code, Retry-After.
    final class Answers: Sendable {
        struct Answer: Sendable {
            let port: Int
            let at: Date
            let status: Int
            let nonce: String?
            let code: String?
            let retryAfter: String?
        }

        private let storage = Mutex<[Answer]>([])

        func add(_ answer: TestHTTP.Answer, port: Int) {
            let json = answer.json
            storage.withLock {
                $0.append(Answer(port: port, at: Date(), status: answer.status, nonce: answer.status == 200 ? json["nonce"] as? String : nil,
                                 code: json["code"] as? String, retryAfter: answer.header("Retry-After")))
            }
        }

        var all: [Answer] { storage.withLock { $0 } }
        var nonces: [String] { all.compactMap(\.nonce) }
    }

    static func sign(_ port: Int, _ user: String) -> TestHTTP.Answer {
        TestHTTP.send(port: port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                      body: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "\#(user)"}"#, timeout: 15)
    }

    /// Signs on `ports` from `threads` threads, a new user each request, until `stop` is set.
    /// Set once, read by the load's threads.
    final class StopFlag: Sendable {
        private let flag = Mutex(false)
        func set() { flag.withLock { $0 = true } }
        var isSet: Bool { flag.withLock { $0 } }
    }

    static func load(ports: [Int], threads: Int, into answers: Answers, until stop: StopFlag) -> DispatchGroup {
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                var n = 0
                while !stop.isSet {
                    let port = ports[(thread + n) % ports.count]
                    answers.add(sign(port, "ha-\(thread)-\(n)"), port: port)
                    n += 1
                }
                group.leave()
            }.start()
        }
        return group
    }

    /// Polls `body` every 100 ms until it returns a value, for up to `seconds`.
    static func eventually<T>(_ seconds: Double, _ body: () throws -> T?) rethrows -> T? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let value = try body() { return value }
            usleep(100_000)
        }
        return nil
    }

    /// Kills the primary as `kill` does, under sign load from two instances, and checks what
    /// the issue asks: every signature a client received is in the new primary's log, the chain
    /// verifies, nonces are unique, both instances sign again, the old primary rejoins.
    /// Returns the longest time between two consecutive records around the failover (the
    /// signing outage, as the records' times tell it).
    func failover(_ kill: (TestPatroniCluster, TestPatroniCluster.Node) throws -> Void,
                  restart: Bool) throws -> Double {
        let cluster = try TestPatroniCluster.start(synchronous: true)
        defer { cluster.destroy() }
        let deployment = try Deployment(cluster: cluster)
        let a = try deployment.serve()
        let b = try deployment.serve()
        let answers = Answers()
        let stop = StopFlag()
        let running = Self.load(ports: [a.port, b.port], threads: 6, into: answers, until: stop)
        #expect(Self.eventually(30) { answers.nonces.count >= 50 ? true : nil } == true, "signing under load before the failover")
        let primary = try cluster.leader()
        let killedAt = Date()
        try kill(cluster, primary)
        let promoted = try cluster.leader(excluding: primary)
        // Both instances sign again on the new primary: a 200 from each, recorded after the kill.
        let resumed = try Self.eventually(90) { () throws -> Bool? in
            let stores = try? deployment.stores()
            defer { stores?.close() }
            guard let stores else { return nil }
            let received = answers.all.filter { $0.status == 200 && $0.at > killedAt }
            let latest = [a.port, b.port].flatMap { port in received.filter { $0.port == port }.suffix(3) }
            let after = latest.compactMap { answer -> Int? in
                guard let logged = try? stores.signatures.signature(nonce: answer.nonce ?? ""),
                      Double(logged.record.recordedAt) / 1000 > killedAt.timeIntervalSince1970 + 0.5 else { return nil }
                return answer.port
            }
            return Set(after) == [a.port, b.port] ? true : nil
        }
        stop.set()
        #expect(running.wait(timeout: .now() + 60) == .success)
        #expect(resumed == true, "both instances sign again after the failover to \(promoted)")

        if restart { try cluster.start(primary) }
        try cluster.waitUntil(seconds: 90, "the old primary back as a replica") { members in
            members.contains { $0.name == primary.name && $0.isReplicaRunning }
        }

        let all = answers.all
        #expect(Set(all.map(\.status)).isSubset(of: [200, 503]), "\(Set(all.map(\.status)))")
        #expect(all.filter { $0.status == 503 }.allSatisfy { $0.retryAfter != nil }, "every 503 says when to retry")
        let nonces = answers.nonces
        #expect(Set(nonces).count == nonces.count, "nonces are unique")
        let stores = try deployment.storesOnPrimary()
        defer { stores.close() }
        var times: [Int64] = []
        for nonce in nonces {
            let logged = try stores.signatures.signature(nonce: nonce)
            #expect(logged != nil, "\(nonce) was received but is not in the new primary's log")
            if let logged { times.append(logged.record.recordedAt) }
        }
        let report = try stores.signatures.verifyIntegrity()
        #expect(report.ok, "\(report.problem ?? "")")
        #expect(report.records >= nonces.count)
        #expect(Self.sign(a.port, "after-rejoin").status == 200)
        let sorted = times.sorted()
        let longest = zip(sorted, sorted.dropFirst()).map { Double($1 - $0) / 1000 }.max() ?? 0
        print("HA failover: \(nonces.count) signatures, \(all.filter { $0.status == 503 }.count) answered 503, "
              + "longest gap between records \(longest) s")
        return longest
    }

    @Test("synchronous cluster, kill -9 of the primary's postmaster under load from two instances: every signature received is in the new primary's log, the chain verifies, nonces are unique, both instances sign again, the old primary rejoins")
    func postmasterKilled() throws {
        guard !TestPatroniCluster.disabled else { return }
        _ = try failover({ cluster, primary in try cluster.killPostmaster(primary) }, restart: false)
    }

    @Test("synchronous cluster, kill -9 of the primary's Patroni and postmaster under load from two instances: nothing received is lost, signing resumes once the leader key expires, the old primary rejoins (pg_rewind)")
    func patroniAndPostmasterKilled() throws {
        guard !TestPatroniCluster.disabled else { return }
        _ = try failover({ cluster, primary in
            try cluster.killPatroni(primary)
            try cluster.killPostmaster(primary)
        }, restart: true)
    }

    @Test("asynchronous cluster, a tail the replicas never received lost by the failover: chain_regressed (503, /readyz 503, counted), never an append over the loss, also from a fresh instance; audit accept-truncation records the gap and signing resumes")
    func lostTailIsRefused() throws {
        guard !TestPatroniCluster.disabled else { return }
        let cluster = try TestPatroniCluster.start(synchronous: false)
        defer { cluster.destroy() }
        let deployment = try Deployment(cluster: cluster)
        let a = try deployment.serve()
        for n in 0..<5 { #expect(Self.sign(a.port, "before-\(n)").status == 200) }
        let primary = try cluster.leader()
        let replicas = cluster.nodes.filter { $0 != primary }
        // The replicas stop; the primary, asynchronous, commits alone what follows.
        for replica in replicas { try cluster.stop(replica) }
        var tail: [String] = []
        for n in 0..<5 {
            let answer = Self.sign(a.port, "tail-\(n)")
            #expect(answer.status == 200)
            if let nonce = answer.json["nonce"] as? String { tail.append(nonce) }
        }
        // The primary goes; a replica without the tail is promoted.
        try cluster.stop(primary)
        for replica in replicas { try cluster.start(replica) }
        let promoted = try cluster.leader(excluding: primary)
        let lostFrom = try deployment.storesOnPrimary()
        #expect(try tail.allSatisfy { try lostFrom.signatures.signature(nonce: $0) == nil }, "the tail is lost on \(promoted)")
        lostFrom.close()

        // Instance A committed the tail: it refuses, never appending over the loss.
        let refused = Self.eventually(60) { () -> TestHTTP.Answer? in
            let answer = Self.sign(a.port, "after-loss")
            return answer.status == 200 || answer.json["code"] as? String == "chain_regressed" ? answer : nil
        }
        let answer = try #require(refused, "A answers chain_regressed")
        #expect(answer.status == 503 && answer.json["code"] as? String == "chain_regressed", "a signature appended over a lost tail: \(answer.body)")
        #expect(answer.header("Retry-After") != nil)
        #expect(TestHTTP.send(port: a.port, "GET", "/readyz").status == 503)
        let metrics = TestHTTP.send(port: a.port, "GET", "/metrics").body
        #expect(metrics.split(separator: "\n").contains { $0.hasPrefix("offer_signer_chain_regressed_total ") && !$0.hasSuffix(" 0") },
                "\(metrics.split(separator: "\n").filter { $0.contains("chain_regressed") })")
        #expect(a.output().contains("chain_regressed"), "the log line names the regression")

        // The old primary rejoins (pg_rewind discards its tail); a fresh instance, which never
        // saw the tail, refuses too: the regression is recorded in the database.
        try cluster.start(primary)
        try cluster.waitUntil(seconds: 90, "the old primary back as a replica") { members in
            members.contains { $0.name == primary.name && $0.isReplicaRunning }
        }
        let b = try deployment.serve(ready: false)
        let fresh = Self.sign(b.port, "fresh")
        #expect(fresh.status == 503 && fresh.json["code"] as? String == "chain_regressed", "\(fresh.body)")
        #expect(TestHTTP.send(port: b.port, "GET", "/readyz").status == 503)

        // The operator accepts the loss: a gap over the tail, and signing resumes.
        let accepted = try CommandLineTests.run(["audit", "accept-truncation", "--reason", "async failover lost the tail",
                                                 "--database", deployment.url, "--keys", deployment.environment.keysPath], timeout: 60)
        #expect(accepted.status == 0, "\(accepted.errors)")
        #expect(accepted.output.contains("records 6–10 were lost"), "\(accepted.output)")
        #expect(Self.eventually(30) { Self.sign(a.port, "after-accept").status == 200 ? true : nil } == true)
        #expect(Self.eventually(30) { TestHTTP.send(port: a.port, "GET", "/readyz").status == 200 ? true : nil } == true)
        let stores = try deployment.storesOnPrimary()
        defer { stores.close() }
        let report = try stores.signatures.verifyIntegrity()
        #expect(report.ok, "\(report.problem ?? "")")
        let verified = try CommandLineTests.run(["audit", "verify", "--database", deployment.url, "--keys", deployment.environment.keysPath],
                                                timeout: 60)
        #expect(verified.status == 0 && verified.output.contains("accepted gap at entry 11"), "\(verified.output)")
    }

    @Test("OFFER_SIGNER_REQUIRE_SYNC_REPLICA=on: both replicas stopped, signing answers 503 (no_synchronous_standby) and /readyz 503 while an instance without it signs on; once a replica is back, it signs again")
    func requireSynchronousReplica() throws {
        guard !TestPatroniCluster.disabled else { return }
        let cluster = try TestPatroniCluster.start(synchronous: true)
        defer { cluster.destroy() }
        let deployment = try Deployment(cluster: cluster, extra: ["OFFER_SIGNER_REQUIRE_SYNC_REPLICA": "on"])
        let strict = try deployment.serve()
        #expect(Self.sign(strict.port, "before").status == 200)
        let primary = try cluster.leader()
        let replicas = cluster.nodes.filter { $0 != primary }
        for replica in replicas { try cluster.stop(replica) }
        // Whatever Patroni does meanwhile (synchronous_mode, not strict, empties
        // synchronous_standby_names; until then commits wait for the standby that left), no
        // synchronous standby is attached: every answer is a refusal, never a signature.
        for n in 0..<5 {
            let answer = Self.sign(strict.port, "alone-\(n)")
            #expect(answer.status == 503 && answer.header("Retry-After") != nil, "\(answer.body)")
        }
        #expect(TestHTTP.send(port: strict.port, "GET", "/readyz").status == 503)
        let metrics = TestHTTP.send(port: strict.port, "GET", "/metrics").body
        #expect(metrics.contains("offer_signer_database_unavailable_total{cause=\"no_synchronous_standby\"} ")
                    && !metrics.contains("offer_signer_database_unavailable_total{cause=\"no_synchronous_standby\"} 0\n"))
        #expect(strict.output().contains("no synchronous standby"))
        // Off by default: once Patroni has emptied synchronous_standby_names (the primary now
        // acknowledges commits alone), an instance without the setting signs meanwhile.
        let emptied = Self.eventually(90) { () -> Bool? in
            guard let leader = try? cluster.leader(),
                  let names = try? cluster.psql(leader, database: "postgres", "SHOW synchronous_standby_names") else { return nil }
            return names.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? true : nil
        }
        if emptied == true {
            let lax = try ServeProcess(environment: deployment.settings.filter { $0.key != "OFFER_SIGNER_REQUIRE_SYNC_REPLICA" },
                                       logFolder: deployment.environment.folder)
            let laxAnswer = Self.sign(lax.port, "lax")
            #expect(laxAnswer.status == 200, "\(laxAnswer.body)")
            #expect(Self.sign(strict.port, "still-alone").status == 503)
        }

        try cluster.start(replicas[0])
        let back = Self.eventually(90) { Self.sign(strict.port, "back").status == 200 ? true : nil }
        #expect(back == true, "signs again once a synchronous standby is attached")
        #expect(Self.eventually(30) { TestHTTP.send(port: strict.port, "GET", "/readyz").status == 200 ? true : nil } == true)
    }
}
