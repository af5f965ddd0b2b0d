import Foundation
import OfferSignerCore
import OfferSignerTestSupport
import Synchronization
import Testing
@testable import OfferSignerStore

/// The measurement behind docs/postgresql.md's choice of one chain for every instance: append
/// throughput and latency of two instances (two logs, each with its pool and group-commit
/// writer, as two processes have) on one database, where every batch takes the chain lock,
/// against two instances on two databases of the same cluster, which is what one chain per
/// instance would cost at best (no shared lock at all). A cluster of its own with fsync on, as
/// in production, since the lock is held through each commit's flush. Opt-in, since it takes half a minute:
/// OFFER_SIGNER_MEASURE_CHAIN_LOCK=1 swift test --filter ChainLockMeasurement
@Suite("Chain lock measurement", .enabled(if: ProcessInfo.processInfo.environment["OFFER_SIGNER_MEASURE_CHAIN_LOCK"] == "1"))
struct ChainLockMeasurement {
    static let seconds = 8.0
    static let threadsPerInstance = 16

    struct Outcome: CustomStringConvertible {
        let appends: Int
        let p50: Double
        let p99: Double
        let batches: Int
        let lockWaitShare: Double
        let longestWait: Double

        var description: String {
            String(format: "%.0f appends/s, p50 %.2f ms, p99 %.2f ms, %.1f appends per batch, lock wait %.1f %% of batch time (longest %.1f ms)",
                   Double(appends) / ChainLockMeasurement.seconds, p50, p99, Double(appends) / Double(max(batches, 1)),
                   lockWaitShare * 100, longestWait)
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// Appends from `threadsPerInstance` threads to each log for `seconds`.
    func run(_ logs: [PostgreSQLSignatureLog]) -> Outcome {
        let latencies = Mutex<[Double]>([])
        let end = Date().addingTimeInterval(Self.seconds)
        let group = DispatchGroup()
        for (instance, log) in logs.enumerated() {
            for thread in 0..<Self.threadsPerInstance {
                group.enter()
                Thread {
                    var mine: [Double] = []
                    var n = 0
                    while Date() < end {
                        let start = ContinuousClock.now
                        let record = SignatureRecord(nonce: "\(instance)-\(thread)-\(n)-\(UUID().uuidString)", format: .legacy, bundleId: "com.example.app",
                                                     productId: "pro", offerId: "o", userId: "u\(n)", keyId: "K", timestamp: 1,
                                                     signature: "MEUCIQ", apiKeyName: "c", requestId: "r", recordedAt: 1)
                        if (try? log.append(record, quota: SignatureQuota(maxCount: 100))) != nil {
                            mine.append(Self.milliseconds(ContinuousClock.now - start))
                        }
                        n += 1
                    }
                    latencies.withLock { $0 += mine }
                    group.leave()
                }.start()
            }
        }
        group.wait()
        let sorted = latencies.withLock { $0 }.sorted()
        let totals = logs.map(\.chainLockWaits.current)
        let batches = totals.map(\.batches).reduce(0, +)
        let waited = totals.map { Self.milliseconds($0.waited) }.reduce(0, +)
        let busy = Self.seconds * 1000 * Double(logs.count)
        return Outcome(appends: sorted.count, p50: sorted[sorted.count / 2], p99: sorted[sorted.count * 99 / 100], batches: batches,
                       lockWaitShare: waited / busy, longestWait: totals.map { Self.milliseconds($0.longest) }.max() ?? 0)
    }

    @Test("one chain (two instances, one database, the chain lock) against two chains (two databases)")
    func measure() throws {
        let cluster = try TestPostgreSQLCluster.startPrivate(durable: true)
        defer { cluster.destroy() }
        let one = try cluster.createDatabase()
        let other = try cluster.createDatabase()
        defer { [one, other].forEach(cluster.dropDatabase) }
        func log(_ name: String) throws -> PostgreSQLSignatureLog {
            try PostgreSQLSignatureLog(database: try PostgreSQLDatabase(url: cluster.url(database: name)))
        }
        let single = try log(one)
        let alone = run([single])
        single.close()
        let shared = [try log(one), try log(one)]
        let oneChain = run(shared)
        shared.forEach { $0.close() }
        let apart = [try log(one), try log(other)]
        let twoChains = run(apart)
        apart.forEach { $0.close() }
        print("chain lock measurement (\(Self.threadsPerInstance) appending threads per instance, \(Self.seconds) s each):")
        print("  one instance:                        \(alone)")
        print("  two instances, one chain (the lock): \(oneChain)")
        print("  two instances, two chains (no lock): \(twoChains)")
        let check = try PostgreSQLSignatureLog(database: try PostgreSQLDatabase(url: cluster.url(database: one)))
        #expect(try check.verifyIntegrity().ok)
    }
}
