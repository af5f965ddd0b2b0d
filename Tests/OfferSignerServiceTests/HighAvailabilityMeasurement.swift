import Foundation
import OfferSignerStore
import OfferSignerTestSupport
import Testing

/// The figures of bench/README.md, "High availability": signatures per second of one `serve`
/// on the synchronous Patroni cluster against one on a single PostgreSQL (both with fsync on,
/// in the same run), and the signing outage of each failover kind, three runs each (the
/// longest time between two consecutive records around the kill, from the records' own
/// times). Off unless `OFFER_SIGNER_MEASURE_HA=1` (it takes a few minutes):
///
///     OFFER_SIGNER_MEASURE_HA=1 swift test --filter HighAvailabilityMeasurement
@Suite("High availability measurement", .serialized)
struct HighAvailabilityMeasurement {
    static var enabled: Bool { ProcessInfo.processInfo.environment["OFFER_SIGNER_MEASURE_HA"] == "1" }

    /// Signatures per second of one instance at `url` under 8 signing threads for 10 s.
    static func throughput(url: String, environment: TestEnvironment) throws -> Double {
        let stores = try Stores.open(try DatabaseLocation(url), followOfferChanges: false)
        _ = try stores.offers.put(TestEnvironment.demoRule(), by: "test", at: Date())
        stores.close()
        let settings = [
            "OFFER_SIGNER_KEYS": environment.keysPath, "OFFER_SIGNER_DATABASE": url,
            "OFFER_SIGNER_APPLE_ROOTS": TestAppStore.folder.appendingPathComponent("root.pem").path,
            "OFFER_SIGNER_ENVIRONMENTS": "Production,Sandbox", "OFFER_SIGNER_LOG_LEVEL": "error",
            "OFFER_SIGNER_RATE_SIGN_PER_KEY": "off", "OFFER_SIGNER_RATE_SIGN_PER_USER": "off",
        ]
        let serve = try ServeProcess(environment: settings, logFolder: environment.folder)
        let answers = HighAvailabilityTests.Answers()
        let stop = HighAvailabilityTests.StopFlag()
        let started = Date()
        let running = HighAvailabilityTests.load(ports: [serve.port], threads: 8, into: answers, until: stop)
        Thread.sleep(forTimeInterval: 10)
        stop.set()
        _ = running.wait(timeout: .now() + 30)
        return Double(answers.nonces.count) / Date().timeIntervalSince(started)
    }

    @Test("signatures per second, single PostgreSQL against the synchronous HA cluster; failover outages, three runs each")
    func measure() throws {
        guard Self.enabled else { return }
        let environment = try TestEnvironment()
        let single = try TestPostgreSQLCluster.startPrivate(durable: true)
        defer { single.destroy() }
        let singleRate = try Self.throughput(url: single.url(database: try single.createDatabase()), environment: environment)
        let cluster = try TestPatroniCluster.start(synchronous: true, durable: true)
        let haRate = try Self.throughput(url: cluster.url(database: try cluster.createDatabase()), environment: environment)
        cluster.destroy()
        print(String(format: "HA measurement: single PostgreSQL %.0f signatures/s, synchronous HA cluster %.0f signatures/s (%.2f×)",
                     singleRate, haRate, haRate / singleRate))
        let tests = HighAvailabilityTests()
        for run in 1...3 {
            let postmaster = try tests.failover({ cluster, primary in try cluster.killPostmaster(primary) }, restart: false)
            let both = try tests.failover({ cluster, primary in
                try cluster.killPatroni(primary)
                try cluster.killPostmaster(primary)
            }, restart: true)
            print(String(format: "HA measurement run %d: postmaster killed %.2f s, Patroni and postmaster killed %.2f s", run, postmaster, both))
        }
    }
}
