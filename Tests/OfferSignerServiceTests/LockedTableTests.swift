import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore
import OfferSignerTestSupport
import Synchronization
import Testing

/// Another session holds a table the service reads (`LOCK TABLE … IN ACCESS EXCLUSIVE MODE`)
/// for longer than the statement deadline: the database is unavailable for those requests,
/// which is a 503 with `Retry-After`, never a 500. A real `serve` on a real cluster.
@Suite("A locked PostgreSQL table", .serialized)
struct LockedTableTests {
    static let user = "5a0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"

    /// Holds `table` locked for `seconds` from another session, on a thread of its own; returns
    /// once the lock is held.
    static func lock(_ table: String, for seconds: Int, on cluster: TestPostgreSQLCluster, database: String) -> DispatchGroup {
        let group = DispatchGroup()
        group.enter()
        Thread {
            _ = try? cluster.psql(database, "BEGIN; LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(\(seconds)); COMMIT")
            group.leave()
        }.start()
        // Wait until the lock is granted (pg_locks shows it), at most 10 s.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let held = (try? cluster.psql(database, """
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = '\(table)' AND l.mode = 'AccessExclusiveLock' AND l.granted
                """))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if held == "1" { break }
            usleep(50_000)
        }
        return group
    }

    /// The sum of `offer_signer_database_unavailable_total` over its causes.
    static func unavailableCount(_ port: Int) -> Int {
        TestHTTP.send(port: port, "GET", "/metrics").body.split(separator: "\n")
            .filter { $0.hasPrefix("offer_signer_database_unavailable_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            .reduce(0, +)
    }

    @Test("transactions, retention_requests and managed_rules each locked for 6 s: sign, introductory eligibility, a user's offers and history, and retention answer 503 with Retry-After, never 500; each counted by cause in /metrics; /readyz not ready meanwhile, ready again after; every request served once the lock is gone")
    func lockedTables() throws {
        let cluster = try TestPostgreSQLCluster.shared.get()
        let deployment = try PostgreSQLInstancesTests.Deployment(cluster: cluster)
        let a = try deployment.serve()
        let port = a.port
        let now = Date()
        let transaction = TestAppStore.transaction(id: "lock1-0", original: "lock1", user: Self.user, purchased: now - 90 * 86_400,
                                                   expires: now - 60 * 86_400, signed: now - 60)
        let notified = TestHTTP.send(port: a.port, "POST", "/v1/notifications/appstore",
                                     body: #"{"signedPayload": "\#(TestAppStore.notification(transaction: transaction, signed: now - 60))"}"#)
        #expect(notified.status == 200, "\(notified.body)")
        let rule = #"{"ruleId": "save", "messageIdentifier": "11111111-1111-4111-8111-111111111111", "offerId": "winback"}"#
        let put = TestHTTP.send(port: a.port, "PUT", "/v1/admin/retention-rules/save", token: TestEnvironment.tokens[.marketing], body: rule)
        #expect(put.status == 201, "\(put.body)")

        let client = TestEnvironment.tokens[.client]
        let marketing = TestEnvironment.tokens[.marketing]
        let requests: [(name: String, send: @Sendable () -> TestHTTP.Answer)] = [
            ("sign", { TestHTTP.send(port: port, "POST", "/v1/offers/sign", token: client, body: PostgreSQLInstancesTests.signBody(Self.user)) }),
            ("introductory", { TestHTTP.send(port: port, "POST", "/v1/offers/introductory-eligibility", token: client, body: """
                {"productId": "\(TestEnvironment.product)", "userId": "\(Self.user)", "transactionId": "2000000777"}
                """) }),
            ("offers", { TestHTTP.send(port: port, "GET", "/v1/users/\(Self.user)/offers", token: client) }),
            ("history", { TestHTTP.send(port: port, "GET", "/v1/users/\(Self.user)/history", token: marketing) }),
            ("retention", {
                let signed = TestAppStore.realtimeRequest(original: "lock1", requestIdentifier: UUID().uuidString, signed: Date() - 1)
                return TestHTTP.send(port: port, "POST", "/v1/retention/appstore", body: #"{"signedPayload": "\#(signed)"}"#)
            }),
        ]
        @Sendable func sendAll(_ names: Set<String>) -> [String: TestHTTP.Answer] {
            let chosen = requests.filter { names.contains($0.name) }
            let answers = Mutex<[String: TestHTTP.Answer]>([:])
            // A thread each (concurrentPerform would run only as many at once as there are cores).
            let group = DispatchGroup()
            for request in chosen {
                group.enter()
                Thread {
                    let answer = request.send()
                    answers.withLock { $0[request.name] = answer }
                    group.leave()
                }.start()
            }
            group.wait()
            return answers.withLock { $0 }
        }
        let everything = Set(requests.map(\.name))
        for (name, answer) in sendAll(everything) {
            #expect([200, 403].contains(answer.status), "\(name) before any lock: \(answer.status) \(answer.body)")
        }
        #expect(TestHTTP.send(port: a.port, "GET", "/readyz").status == 200)

        let phases: [(table: String, affected: Set<String>)] = [
            ("transactions", everything),
            ("retention_requests", ["retention"]),
            ("managed_rules", ["retention", "introductory"]),
        ]
        for phase in phases {
            let before = Self.unavailableCount(a.port)
            let held = Self.lock(phase.table, for: 6, on: cluster, database: deployment.name)
            let answers = sendAll(phase.affected)
            let readyWhileLocked = TestHTTP.send(port: a.port, "GET", "/readyz")
            let counted = Self.unavailableCount(a.port) - before
            #expect(held.wait(timeout: .now() + 30) == .success)
            for (name, answer) in answers {
                #expect(answer.status == 503, "\(name) with \(phase.table) locked: \(answer.status) after \(answer.seconds) s \(answer.body.prefix(300))")
                #expect(answer.header("Retry-After") != nil, "\(name) with \(phase.table) locked: no Retry-After in \(answer.head)")
                #expect(answer.seconds < 10, "\(name) answered within the request timeout")
            }
            #expect(counted >= phase.affected.count, "\(phase.table): \(counted) counted in offer_signer_database_unavailable_total")
            #expect(readyWhileLocked.status == 503, "/readyz right after \(phase.table) was found locked: \(readyWhileLocked.body)")

            // The lock is gone: every request is served again, and /readyz turns ready by itself.
            for (name, answer) in sendAll(everything) {
                #expect([200, 403].contains(answer.status), "\(name) after \(phase.table) was unlocked: \(answer.status) \(answer.body)")
            }
            var ready = TestHTTP.send(port: a.port, "GET", "/readyz")
            let deadline = Date().addingTimeInterval(15)
            while ready.status != 200 && Date() < deadline {
                usleep(200_000)
                ready = TestHTTP.send(port: a.port, "GET", "/readyz")
            }
            #expect(ready.status == 200, "/readyz after \(phase.table) was unlocked: \(ready.body)")
        }
        let metrics = TestHTTP.send(port: a.port, "GET", "/metrics").body
        #expect(!metrics.contains("status=\"500\""), "no request answered 500")
        #expect(metrics.contains("offer_signer_database_unavailable_total{cause=\"statement_timeout\"}")
                    && metrics.contains("offer_signer_database_unavailable_total{cause=\"lock_timeout\"}"))
    }
}
