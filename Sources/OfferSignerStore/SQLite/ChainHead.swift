import OfferSignerCore
import Synchronization

/// Where the signature log's hash chain ends, as its writer extends it: the last record's
/// sequence and hash. Held in memory so a batch need not look it up, and read back from the
/// file only when a batch that moved it rolled back.
final class ChainHead: Sendable {
    /// A position in the chain: a record's sequence and hash.
    struct Link: Equatable, Sendable {
        var sequence: Int64
        var hash: String

        /// Before the first record.
        static let genesis = Link(sequence: 0, hash: SignatureChain.genesis)
    }

    /// The head as of the writer's last batch (committed, unless that batch rolled back).
    private let latest: Mutex<Link>

    /// The head of the log stored in `db`.
    init(reading db: SQLiteConnection) throws {
        latest = Mutex(try Self.link(db, "SELECT seq, hash FROM signatures ORDER BY seq DESC LIMIT 1"))
    }

    /// The head as committed: the one in memory, unless a batch rolled back after moving it.
    /// Call inside the writer's transaction.
    func committed(_ db: SQLiteConnection) throws -> Link {
        let latest = self.latest.withLock { $0 }
        let committed = try db.scalar("SELECT MAX(seq) FROM signatures") ?? 0
        guard committed != latest.sequence else { return latest }
        return try Self.link(db, "SELECT seq, hash FROM signatures WHERE seq = ?", [.integer(committed)])
    }

    /// Makes `link` the head, recording it in `signature_chain_head` in the writer's open
    /// transaction when it moved, so that records cut off the end of the log are noticed.
    func advance(to link: Link, _ db: SQLiteConnection) throws {
        if link != latest.withLock({ $0 }) {
            try db.run("""
                INSERT INTO signature_chain_head (id, seq, hash) VALUES (1, ?, ?)
                ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
                """, [.integer(link.sequence), .text(link.hash)])
        }
        latest.withLock { $0 = link }
    }

    /// The first row of `sql` (selecting a sequence and a hash), or genesis when there is none.
    private static func link(_ db: SQLiteConnection, _ sql: String, _ values: [SQLiteValue] = []) throws -> Link {
        try db.query(sql, values) { Link(sequence: $0.int64(0), hash: $0.text(1)) }.first ?? .genesis
    }
}
