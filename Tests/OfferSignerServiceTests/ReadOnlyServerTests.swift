import Foundation
import OfferSignerCore
import OfferSignerStore
import OfferSignerTestSupport
import Testing

/// A pooled connection whose server stopped taking writes (a primary demoted under it, a proxy
/// that has not switched yet) answers `25006`: the connection is dropped and the transaction,
/// which wrote nothing, runs again on a new connection, which libpq's
/// `target_session_attrs=read-write` takes to a server that takes writes.
@Suite("PostgreSQL: a read-only answer leads to a new connection")
struct ReadOnlyServerTests {
    @Test("a write whose pooled connection turned read-only runs again on a new connection and commits, instead of answering 503")
    func readOnlyConnectionIsReplaced() throws {
        guard !TestPostgreSQLCluster.disabled else { return }
        let cluster = try TestPostgreSQLCluster.startPrivate()
        defer { cluster.destroy() }
        let database = try cluster.createDatabase()
        let stores = try Stores.open(try DatabaseLocation(cluster.url(database: database)), followOfferChanges: false)
        defer { stores.close() }
        _ = try stores.offers.put(TestEnvironment.demoRule(), by: "test", at: Date())
        // Sessions open now turn read-only at their next statement; new sessions of the
        // database do not (its own setting outranks the server's file).
        try cluster.psql(database, "ALTER DATABASE \(database) SET default_transaction_read_only = off")
        try cluster.psql("postgres", "ALTER SYSTEM SET default_transaction_read_only = on")
        try cluster.psql("postgres", "SELECT pg_reload_conf()")
        var reloaded = false
        for _ in 0..<100 where !reloaded {
            reloaded = try cluster.psql("postgres", "SHOW default_transaction_read_only").trimmingCharacters(in: .whitespacesAndNewlines) == "on"
            if !reloaded { usleep(50_000) }
        }
        #expect(reloaded)
        usleep(300_000)  // the server's other sessions take the reload signal too
        let changed = try stores.offers.put(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: 2)), by: "test", at: Date())
        #expect(changed.version == 2)
    }
}
