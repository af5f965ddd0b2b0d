import Foundation
import OfferSignerTestSupport
import Testing

/// The HA harness itself: three Patroni nodes come up, a killed primary fails over, and the
/// old primary rejoins as a replica.
@Suite("Patroni test cluster", .serialized)
struct PatroniClusterTests {
    @Test("starts a leader and two replicas, fails over when the primary's postmaster is killed, and takes the old primary back")
    func failover() throws {
        guard !TestPatroniCluster.disabled else { return }
        let started = ContinuousClock.now
        let cluster = try TestPatroniCluster.start()
        defer { cluster.destroy() }
        print("HA cluster up in \(ContinuousClock.now - started)")
        let leader = try cluster.leader()
        let database = try cluster.createDatabase()
        try cluster.psql(leader, database: database, "CREATE TABLE t (n int); INSERT INTO t VALUES (1)")
        try cluster.killPostmaster(leader)
        let next = try cluster.leader(excluding: leader)
        #expect(try cluster.psql(next, database: database, "SELECT count(*) FROM t").trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        try cluster.waitUntil(seconds: 60, "the old primary replicating") { members in
            members.contains { $0.name == leader.name && $0.isReplicaRunning }
        }
    }
}
