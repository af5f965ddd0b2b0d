import Foundation
import OfferSignerCore

extension SQLiteSignatureLog {
    /// The operator's answer to records cut off the end of the log that no backup can bring
    /// back: writes an accepted gap (`ChainGap`) into the chain after the last record kept,
    /// naming what was lost, who accepted it, when and why, and records it as the chain's end,
    /// so appends resume after it. Lost sequence numbers are never reused, the gap is part of
    /// the chain (removing it breaks every later link), and every integrity report lists it.
    ///
    /// Refused unless the log's only fault is a cut-off end: with nothing lost there is
    /// nothing to accept, and a changed record or an end moved forward is not a loss a gap
    /// may cover (restore a backup instead).
    public func acceptTruncation(by actor: String, reason: String, at time: Date) throws(TruncationRefusal) -> ChainGap {
        do {
            return try database.write { db throws -> ChainGap in
                let state = try ChainHead.read(db, committed: health.committed)
                guard let mismatch = state.mismatch else { throw TruncationRefusal.nothingLost }
                guard mismatch.isTruncation else { throw TruncationRefusal.notATruncation(mismatch) }
                let kept = try Self.walk(db, IntegrityOptions())
                if let sequence = kept.firstBadSequence, let problem = kept.problem {
                    throw TruncationRefusal.keptRecordsBroken(sequence: sequence, problem: problem)
                }
                let lost = mismatch.lostThrough
                let gap = ChainGap(sequence: (lost?.sequence ?? state.last.sequence) + 1, resumedAfter: state.last, lostThrough: lost,
                                   acceptedBy: actor, reason: reason, acceptedAt: time.milliseconds)
                try db.run("""
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
