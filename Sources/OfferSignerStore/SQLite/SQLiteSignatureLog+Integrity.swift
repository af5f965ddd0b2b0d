import Foundation
import OfferSignerCore

extension SQLiteSignatureLog {
    /// Walks every record and accepted gap in one read snapshot of the audit lane, so that a
    /// long walk never holds a connection signing needs.
    public func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport {
        try database.read(.audit) { db in try Self.walk(db, options) }
    }

    /// The accepted gaps, in sequence order.
    public func gaps() throws -> [ChainGap] {
        try database.read(.audit) { db in try Self.gaps(db) }
    }

    /// Walks the chain stored in `db`: records and gaps merged in sequence order, then the
    /// recorded end and the checkpoints beyond it.
    static func walk(_ db: SQLiteConnection, _ options: IntegrityOptions) throws -> IntegrityReport {
        var walk = ChainWalk(options)
        var gaps = try Self.gaps(db)[...]
        let statement = try db.statement("\(selectColumns) ORDER BY seq")
        while try statement.step() {
            let row = SQLiteRow(statement: statement)
            let sequence = row.int64(0)
            while let gap = gaps.first, gap.sequence < sequence {
                walk.visit(gap)
                gaps.removeFirst()
            }
            if walk.failed {
                walk.visitCounted()
                continue
            }
            do {
                walk.visit(try logged(row))
            } catch let unreadable as UnreadableSignatureRecord {
                walk.visit(unreadable: unreadable)
            }
        }
        for gap in gaps { walk.visit(gap) }
        return walk.report(recorded: try ChainHead.read(db).recorded)
    }

    static func gaps(_ db: SQLiteConnection) throws -> [ChainGap] {
        try db.query("""
            SELECT seq, resumed_after_seq, prev_hash, lost_through_seq, lost_through_hash, accepted_by, reason, accepted_at_ms, hash
            FROM signature_log_gaps ORDER BY seq
            """) { row in
            let lost: ChainLink? = row.isNull(3) || row.isNull(4) ? nil : ChainLink(sequence: row.int64(3), hash: row.text(4))
            return ChainGap(sequence: row.int64(0), resumedAfter: ChainLink(sequence: row.int64(1), hash: row.text(2)),
                            lostThrough: lost, acceptedBy: row.text(5), reason: row.text(6), acceptedAt: row.int64(7), hash: row.text(8))
        }
    }
}
