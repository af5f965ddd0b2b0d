import OfferSignerCore

/// The PostgreSQL side of ``ChainHead``: where the chain ends and where its last commit
/// recorded that it ends, read in one statement, and the recorded end moved. The check itself
/// (``ChainHead/State``) is the one the SQLite log makes.
enum PostgreSQLChainEnd {
    /// The advisory lock every append batch, probe and accepted gap takes first: it orders the
    /// writers of every instance, so the log stays one chain.
    static let lock: Int64 = 0x6f66_6665_7273_03

    /// Takes the chain lock for the open transaction.
    static func lock(_ db: PostgreSQLConnection) throws {
        try db.query("SELECT pg_advisory_xact_lock($1)", [.integer(lock)])
    }

    /// The chain's last entry, its recorded end and the furthest entry a checkpoint or
    /// `committed` (this instance's last commit) vouches for.
    static func read(_ db: PostgreSQLConnection, committed: ChainLink = .genesis) throws -> ChainHead.State {
        let rows = try db.query("""
            SELECT 'record', seq, hash FROM (SELECT seq, hash FROM signatures ORDER BY seq DESC LIMIT 1) r
            UNION ALL SELECT 'gap', seq, hash FROM (SELECT seq, hash FROM signature_log_gaps ORDER BY seq DESC LIMIT 1) g
            UNION ALL SELECT 'checkpoint', seq, chain_hash FROM (SELECT seq, chain_hash FROM signature_checkpoints ORDER BY seq DESC LIMIT 1) c
            UNION ALL SELECT 'recorded', seq, hash FROM signature_chain_head WHERE id = 1
            """)
        var links: [String: ChainLink] = [:]
        for index in 0..<rows.count {
            let row = rows[index]
            links[row.text(0)] = ChainLink(sequence: row.int64(1), hash: row.text(2))
        }
        let last = [links["record"], links["gap"]].compactMap { $0 }.max { $0.sequence < $1.sequence } ?? .genesis
        let vouched = [links["checkpoint"], committed].compactMap { $0 }.max { $0.sequence < $1.sequence } ?? .genesis
        return ChainHead.State(last: last, recorded: links["recorded"], vouched: vouched)
    }

    /// Records `link` as the chain's end, in the writer's open transaction.
    static func record(_ link: ChainLink, _ db: PostgreSQLConnection) throws {
        try db.query("""
            INSERT INTO signature_chain_head (id, seq, hash) VALUES (1, $1, $2)
            ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
            """, [.integer(link.sequence), .text(link.hash)])
    }
}
