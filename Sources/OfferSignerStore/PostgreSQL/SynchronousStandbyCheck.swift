import Foundation
import Synchronization

/// `OFFER_SIGNER_REQUIRE_SYNC_REPLICA`: whether the primary has a synchronous standby
/// attached, so that a commit it acknowledges is on a second server and survives a failover.
/// Read from `synchronous_standby_names` and `pg_stat_replication` (whose `sync_state` a role
/// sees only with `pg_monitor`, or `pg_read_all_stats`, or as a superuser) at start, after
/// every new connection (a reconnect may have reached another primary) and at most once a
/// second besides; the signature log's writer asks before each batch, readiness before
/// answering. Nothing is read when not required.
final class SynchronousStandbyCheck: Sendable {
    /// Whether signing needs a synchronous standby.
    let required: Bool
    /// How long an answer is used before it is read again.
    static let interval: Duration = .seconds(1)

    /// The last answer: nil when a standby was attached, else why not; and when it was read
    /// (nil: to be read at the next use).
    private let state = Mutex<(refusal: String?, readAt: ContinuousClock.Instant?)>((nil, nil))

    init(required: Bool) {
        self.required = required
    }

    /// Makes the next use read the server again (a new connection was made).
    func invalidate() {
        guard required else { return }
        state.withLock { $0.readAt = nil }
    }

    /// Why signing must wait (no synchronous standby attached), or nil; reads the server on
    /// `db` when the last answer is older than ``interval`` or was invalidated.
    func refusal(_ db: PostgreSQLConnection) throws(PostgreSQLError) -> String? {
        guard required else { return nil }
        let now = ContinuousClock.now
        let (fresh, known) = state.withLock { state in (state.readAt.map { now - $0 < Self.interval } ?? false, state.refusal) }
        if fresh { return known }
        let found = try Self.read(db)
        state.withLock { $0 = (found, now) }
        return found
    }

    /// Why the server behind `db` does not make commits wait for a synchronous standby, or nil.
    static func read(_ db: PostgreSQLConnection) throws(PostgreSQLError) -> String? {
        let result = try db.query("""
            SELECT current_setting('synchronous_standby_names'), pg_is_in_recovery()::int,
                (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))
            """)
        guard result.count == 1 else { return "the server's replication state could not be read" }
        let names = result[0].text(0)
        if result[0].int64(1) == 1 { return "the server is a standby, not the primary" }
        if names.trimmingCharacters(in: .whitespaces).isEmpty {
            return "no synchronous standby is configured (synchronous_standby_names is empty): a commit would reach only the primary"
        }
        if result[0].int64(2) == 0 {
            return "no synchronous standby is attached (synchronous_standby_names is '\(names)', pg_stat_replication shows none in sync)"
        }
        return nil
    }
}
