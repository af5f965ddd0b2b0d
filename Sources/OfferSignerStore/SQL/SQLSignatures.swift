import Foundation
import OfferSignerCore

/// The signature log's reads, its integrity walk and the acceptance of a cut-off end, written
/// once. Each engine's log keeps only its writer: how a batch is inserted, locked and counted
/// against the quotas.
enum SQLSignatures {
    static func signature(nonce: String, _ database: some SQLDatabase) throws -> LoggedSignature? {
        try database.withReader(.audit) { db in
            try db.first("\(SignatureRows.select) WHERE nonce = ?", [.text(nonce)]) { try SignatureRows.logged($0) }
        }
    }

    /// ``SignatureLog/signatures(matching:afterSequence:limit:)``.
    static func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int,
                           _ database: some SQLDatabase) throws -> [LoggedSignature] {
        var conditions = SQLConditions()
        conditions.add("seq > ?", .integer(afterSequence))
        for (column, value) in [("user_id", filter.userId), ("offer_id", filter.offerId), ("product_id", filter.productId),
                                ("bundle_id", filter.bundleId), ("key_id", filter.keyId), ("source", filter.source?.rawValue),
                                ("format", filter.format?.rawValue)] {
            conditions.add(column, equals: value)
        }
        if let from = filter.fromTimestamp { conditions.add("timestamp_ms >= ?", .integer(from)) }
        if let to = filter.toTimestamp { conditions.add("timestamp_ms < ?", .integer(to)) }
        let sql = "\(SignatureRows.select) WHERE \(conditions.sql) ORDER BY seq LIMIT ?"
        return try database.withReader(.audit) { db in
            try db.select(sql, conditions.values + [.limit(limit)]) { try SignatureRows.logged($0) }
        }
    }

    /// The accepted gaps, in sequence order.
    static func gaps(_ db: some SQLConnection) throws -> [ChainGap] {
        try db.select("""
            SELECT seq, resumed_after_seq, prev_hash, lost_through_seq, lost_through_hash, accepted_by, reason, accepted_at_ms, hash
            FROM signature_log_gaps ORDER BY seq
            """) { row in
            let lost: ChainLink? = row.isNull(3) || row.isNull(4) ? nil : ChainLink(sequence: row.int64(3), hash: row.text(4))
            return ChainGap(sequence: row.int64(0), resumedAfter: ChainLink(sequence: row.int64(1), hash: row.text(2)),
                            lostThrough: lost, acceptedBy: row.text(5), reason: row.text(6), acceptedAt: row.int64(7), hash: row.text(8))
        }
    }

    /// Records read per page by a walk.
    static let pageSize = 5000
    private static let pageSQL = "\(SignatureRows.select) WHERE seq > ? ORDER BY seq LIMIT \(pageSize)"

    /// Walks the chain `db` holds, a page at a time: records and gaps merged in sequence order,
    /// then the recorded end and the checkpoints beyond it (see ``ChainWalk``). Call inside one
    /// read snapshot.
    static func walk(_ db: some SQLConnection, _ options: IntegrityOptions) throws -> IntegrityReport {
        var walk = ChainWalk(options)
        var gaps = try Self.gaps(db)[...]
        var after = Int64.min
        while true {
            var count = 0
            _ = try db.select(pageSQL, [.integer(after)]) { row in
                count += 1
                let sequence = row.int64(0)
                after = sequence
                while let gap = gaps.first, gap.sequence < sequence {
                    walk.visit(gap)
                    gaps.removeFirst()
                }
                if walk.failed {
                    walk.visitCounted()
                    return
                }
                do {
                    walk.visit(try SignatureRows.logged(row))
                } catch let unreadable as UnreadableSignatureRecord {
                    walk.visit(unreadable: unreadable)
                }
            }
            guard count == pageSize else { break }
        }
        for gap in gaps { walk.visit(gap) }
        return walk.report(recorded: try ChainHead.read(db).recorded)
    }

    /// The operator's answer to records cut off the end of the log that no backup can bring
    /// back: writes an accepted gap (`ChainGap`) into the chain after the last record kept,
    /// naming what was lost, who accepted it, when and why, and records it as the chain's end,
    /// so appends resume after it. Lost sequence numbers are never reused, the gap is part of
    /// the chain (removing it breaks every later link), and every integrity report lists it.
    /// Written under the chain lock, so no instance appends meanwhile.
    ///
    /// Refused unless the log's only fault is a cut-off end: with nothing lost there is
    /// nothing to accept, and a changed record or an end moved forward is not a loss a gap
    /// may cover (restore a backup instead).
    static func acceptTruncation(_ database: some SQLDatabase, committed: ChainLink, by actor: String, reason: String,
                                 at time: Date) throws(TruncationRefusal) -> ChainGap {
        do {
            return try database.inTransaction { db throws -> ChainGap in
                try ChainHead.lock(db)
                let state = try ChainHead.read(db, committed: committed)
                guard let mismatch = state.mismatch else { throw TruncationRefusal.nothingLost }
                guard mismatch.isTruncation else { throw TruncationRefusal.notATruncation(mismatch) }
                let kept = try walk(db, IntegrityOptions())
                if let sequence = kept.firstBadSequence, let problem = kept.problem {
                    throw TruncationRefusal.keptRecordsBroken(sequence: sequence, problem: problem)
                }
                let lost = mismatch.lostThrough
                let gap = ChainGap(sequence: (lost?.sequence ?? state.last.sequence) + 1, resumedAfter: state.last, lostThrough: lost,
                                   acceptedBy: actor, reason: reason, acceptedAt: time.milliseconds)
                try db.change("""
                    INSERT INTO signature_log_gaps (seq, resumed_after_seq, prev_hash, lost_through_seq, lost_through_hash,
                        accepted_by, reason, accepted_at_ms, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(gap.sequence), .integer(gap.resumedAfter.sequence), .text(gap.resumedAfter.hash),
                          .optional(lost?.sequence), .optional(lost?.hash), .text(actor), .text(reason), .integer(gap.acceptedAt),
                          .text(gap.hash)])
                try ChainHead.record(ChainLink(sequence: gap.sequence, hash: gap.hash), db)
                return gap
            }
        } catch let refusal as TruncationRefusal {
            throw refusal
        } catch {
            throw .unavailable(String(describing: error))
        }
    }
}

/// Why a truncation was not accepted.
public enum TruncationRefusal: Error, CustomStringConvertible, Sendable {
    /// The log ends where it was recorded to end.
    case nothingLost
    /// The end does not match, but not because entries are missing from it.
    case notATruncation(ChainEndMismatch)
    /// The records kept do not form an intact chain themselves.
    case keptRecordsBroken(sequence: Int64, problem: String)
    /// The database could not be read or written.
    case unavailable(String)

    public var description: String {
        switch self {
        case .nothingLost:
            "the signature log ends where its last commit recorded it: there is no loss to accept"
        case .notATruncation(let mismatch):
            "\(mismatch); this is not a loss of records from the end, which is all a gap may cover: restore the database from a backup"
        case .keptRecordsBroken(let sequence, let problem):
            "the records kept are not intact (\(problem)), at entry \(sequence); restore the database from a backup"
        case .unavailable(let reason):
            "the signature log cannot be written: \(reason)"
        }
    }
}
