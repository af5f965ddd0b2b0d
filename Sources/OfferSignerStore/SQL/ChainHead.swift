import OfferSignerCore

/// Where the signature log's hash chain ends, and the check that keeps a cut-off end from
/// being forgotten. Every batch records the end it leaves in `signature_chain_head`, in its
/// own transaction; before writing, the next batch reads that row back and compares it with
/// the chain's last entry (a record or an accepted gap). Any difference — entries removed
/// from the end, the row missing while entries exist, a last entry changed or added behind
/// the service's back — refuses the batch: the recorded end is never overwritten, so the
/// evidence stays until an operator acts (see ``SQLSignatures/acceptTruncation(_:committed:by:reason:at:)``).
enum ChainHead {
    /// Takes the chain lock for the open transaction: every append batch, probe and accepted gap
    /// takes it first, so the writers of every instance keep one chain (PostgreSQL; SQLite's
    /// one writer is serial already).
    static func lock(_ db: some SQLConnection) throws {
        try db.lockForChanges(SQLChangeLock.chain)
    }

    /// The end to extend: the chain's last entry, once checked against the recorded end and
    /// against `committed`, the end this process itself last committed (which a recorded end
    /// may pass, when an operator accepted a gap meanwhile, but never fall behind). Call inside
    /// the writer's transaction.
    static func verifiedEnd(_ db: some SQLConnection, committed: ChainLink) throws -> ChainLink {
        let state = try read(db, committed: committed)
        if let mismatch = state.mismatch { throw mismatch }
        return state.last
    }

    /// Records `link` as the chain's end, in the writer's open transaction.
    static func record(_ link: ChainLink, _ db: some SQLConnection) throws {
        try db.change("""
            INSERT INTO signature_chain_head (id, seq, hash) VALUES (1, ?, ?)
            ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
            """, [.integer(link.sequence), .text(link.hash)])
    }

    /// The chain's last entry, its recorded end, and the furthest entry a stored checkpoint
    /// or `committed` vouches for, as `db` holds them, read in one statement.
    static func read(_ db: some SQLConnection, committed: ChainLink = .genesis) throws -> State {
        var links: [String: ChainLink] = [:]
        _ = try db.select("""
            SELECT 'record', seq, hash FROM (SELECT seq, hash FROM signatures ORDER BY seq DESC LIMIT 1) r
            UNION ALL SELECT 'gap', seq, hash FROM (SELECT seq, hash FROM signature_log_gaps ORDER BY seq DESC LIMIT 1) g
            UNION ALL SELECT 'checkpoint', seq, chain_hash FROM (SELECT seq, chain_hash FROM signature_checkpoints ORDER BY seq DESC LIMIT 1) c
            UNION ALL SELECT 'recorded', seq, hash FROM signature_chain_head WHERE id = 1
            """, []) { row in links[row.text(0)] = ChainLink(sequence: row.int64(1), hash: row.text(2)) }
        let last = [links["record"], links["gap"]].compactMap { $0 }.max { $0.sequence < $1.sequence } ?? .genesis
        let vouched = [links["checkpoint"], committed].compactMap { $0 }.max { $0.sequence < $1.sequence } ?? .genesis
        return State(last: last, recorded: links["recorded"], vouched: vouched)
    }

    /// The chain's last entry beside the end the last commit recorded.
    struct State: Sendable {
        /// The last record or accepted gap (genesis when there is none).
        var last: ChainLink
        /// The recorded end; nil when the row is missing.
        var recorded: ChainLink?
        /// The furthest entry known to have been committed, from a stored checkpoint or this
        /// process's own commits (genesis when none is known).
        var vouched: ChainLink = .genesis

        /// What does not match, or nil. A missing row is fine only while the log is empty.
        var mismatch: ChainEndMismatch? {
            let found = ChainEndMismatch(recorded: recorded, last: last, vouched: vouched.sequence > last.sequence ? vouched : nil)
            if let recorded, recorded != last { return found }
            if recorded == nil, last != .genesis { return found }
            return found.vouched == nil ? nil : found
        }
    }
}

/// The signature log does not end where its last commit said it ends.
public struct ChainEndMismatch: Error, CustomStringConvertible, Sendable, Equatable {
    /// The end recorded by the last commit; nil when that record is missing.
    public let recorded: ChainLink?
    /// The chain's actual last entry (genesis for an empty log).
    public let last: ChainLink
    /// An entry past `last` that a checkpoint or the service's own commit vouches for, if any.
    public let vouched: ChainLink?

    /// True when entries are missing from the end (or the recorded end is missing while entries
    /// exist): the case an operator may accept as a gap.
    public var isTruncation: Bool {
        if vouched != nil { return true }
        guard let recorded else { return true }
        return recorded.sequence > last.sequence
    }

    /// The furthest entry known to have existed past the last one kept, if known.
    public var lostThrough: ChainLink? {
        [recorded, vouched].compactMap { $0 }.filter { $0.sequence > last.sequence }.max { $0.sequence < $1.sequence }
    }

    public var description: String {
        if let recorded, recorded.sequence > last.sequence {
            return "the log ends at entry \(last.sequence) but was committed up to entry \(recorded.sequence): entries were removed from its end"
        }
        if let vouched {
            return "the log ends at entry \(last.sequence) but entry \(vouched.sequence) was committed (a checkpoint or this service vouches for it): entries were removed from its end, and its recorded end with them"
        }
        guard let recorded else {
            return "the recorded end of the chain is missing while the log holds entries up to \(last.sequence): it was deleted"
        }
        if recorded.sequence < last.sequence {
            return "the log holds entries up to \(last.sequence), past its recorded end \(recorded.sequence): they were not written by this service"
        }
        return "entry \(last.sequence) does not match the recorded end of the chain: it was changed after it was written"
    }
}
