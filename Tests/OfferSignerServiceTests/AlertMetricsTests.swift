import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// The metrics the alert rules of deploy/prometheus watch, as `/metrics` shows them.
@Suite("Metrics the alert rules watch")
struct AlertMetricsTests {
    /// The value of the sample `series` (name and labels, as rendered), nil when absent.
    static func sample(_ metrics: String, _ series: String) -> String? {
        metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map { String($0.dropFirst(series.count + 1)) }
    }

    func metrics(_ env: TestEnvironment) -> String {
        env.send("GET", "/metrics", role: nil).text
    }

    func sign(_ env: TestEnvironment, _ user: String) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
    }

    static let append = #"offer_signer_chain_integrity_failures_total{check="append"}"#
    static let walk = #"offer_signer_chain_integrity_failures_total{check="walk"}"#

    @Test("an append refused because the log does not end where its last commit recorded it counts check=append (not chain_regressed)")
    func appendRefused() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        #expect(sign(env, "a").status == 200)
        #expect(Self.sample(metrics(env), Self.append) == "0" && Self.sample(metrics(env), Self.walk) == "0")
        // The recorded end names the last entry with another hash: the last record was changed.
        try env.database.write { db in try db.run("UPDATE signature_chain_head SET hash = ? WHERE id = 1", [.text(String(repeating: "0", count: 64))]) }
        #expect(sign(env, "b").status == 503)
        #expect(sign(env, "c").status == 503)
        let after = metrics(env)
        #expect(Self.sample(after, Self.append) == "2", "\(after)")
        #expect(Self.sample(after, "offer_signer_chain_regressed_total") == "0")
    }

    @Test("a log that went backwards counts in chain_regressed only; an integrity walk that finds the log broken counts check=walk, an intact walk nothing")
    func regressedAndWalk() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        for n in 0..<4 { #expect(sign(env, "u\(n)").status == 200) }
        #expect(env.send("GET", "/v1/audit/integrity", role: .auditor).json["ok"] as? Bool == true)
        #expect(Self.sample(metrics(env), Self.walk) == "0")

        try env.database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }
        #expect(sign(env, "after").code == "chain_regressed")
        #expect(env.send("GET", "/v1/audit/integrity", role: .auditor).json["ok"] as? Bool == false)
        let after = metrics(env)
        #expect(Self.sample(after, "offer_signer_chain_regressed_total") == "1")
        #expect(Self.sample(after, Self.append) == "0", "chain_regressed is counted apart")
        #expect(Self.sample(after, Self.walk) == "1", "\(after)")
    }

    @Test("each Retention Messaging answer is timed in a histogram with a bucket at Apple's 700 ms, refusals included")
    func retentionAnswerTime() throws {
        let tests = RetentionEndpointTests()
        let (env, _) = try tests.lapsedSubscriber()
        let name = "offer_signer_retention_answer_duration_seconds"
        #expect(Self.sample(metrics(env), "\(name)_count") == "0")
        #expect(tests.ask(env).status == 200)
        #expect(tests.send(env, "not.a.jws").status != 200)
        let after = metrics(env)
        #expect(after.contains("# TYPE \(name) histogram\n"))
        #expect(Self.sample(after, "\(name)_count") == "2", "\(after)")
        #expect(Self.sample(after, "\(name)_bucket{le=\"+Inf\"}") == "2")
        let within = try #require(Self.sample(after, "\(name)_bucket{le=\"0.7\"}").flatMap { Int($0) }, "no 0.7 bucket:\n\(after)")
        #expect((0...2).contains(within))
        #expect(Self.sample(after, "\(name)_sum").flatMap(Double.init).map { $0 > 0 } == true)
    }

    @Test("every trusted root's expiry is shown, in seconds since 1970, under its subject")
    func trustedRootExpiry() throws {
        let env = try TestEnvironment()
        // The fixture root (`openssl x509 -noout -subject -enddate`): notAfter=Aug  8 06:23:28 2040 GMT.
        let series = #"offer_signer_trusted_root_not_after_timestamp_seconds{subject="/O=offer-signer tests/CN=Test Root CA"}"#
        #expect(Self.sample(metrics(env), series) == "2228019808", "\(metrics(env))")
    }

    @Test("with every key in memory, no active key is unavailable")
    func keysInMemory() throws {
        let env = try TestEnvironment()
        #expect(Self.sample(metrics(env), "offer_signer_signing_keys_unavailable") == "0")
    }
}
