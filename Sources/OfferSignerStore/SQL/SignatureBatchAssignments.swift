import Foundation
import OfferSignerCore

/// What the signature log's writer is handed: a write, and for a placement inside an
/// experiment the user's assignment to record in the same commit.
struct LogItem: Sendable {
    var write: LogWrite
    var assignment: SignedAssignment?
}

/// The experiment assignments a signature batch records in its own transaction, so a
/// placement inside an experiment costs no commit of its own (engine-independent: it wraps
/// the engine's batch writer, which never sees the assignments).
///
/// Before the records are written, the batch's new users are inserted (on SQLite a statement
/// each, on PostgreSQL one statement per 64 users), eligible and first signed at their
/// record's timestamp; a user whose first assignment is already committed (another request,
/// another instance) keeps it. A record
/// whose user turns out assigned to another arm — by another request drawn under other
/// weights, committed first or earlier in this batch — is not written: its request is told
/// the assignment that stands. After the records are written, a new assignment whose record
/// the log refused (the quota) is no longer marked signed, and a recorded assignment is marked
/// eligible and signed as its record says — unless its row is known to be both already (a
/// user's second request in the batch, or one whose first committed since it read the
/// assignment): then nothing is written for it. One hash chain, the quota and durability are
/// the engine writer's, untouched.
struct SignatureBatchAssignments {
    /// The writes to hand the engine's batch writer: the batch's, less those refused here.
    let writes: [LogWrite]
    /// Per item of the batch, what it needs (empty when no item carries an assignment).
    private let plans: [Plan]
    /// Whether a new user has more than one item in the batch (their requests at once).
    private let repeats: Bool

    private enum Plan {
        /// Nothing to record.
        case nothing
        /// Inserted here, first signed at the record's timestamp.
        case inserted(SQLExperimentAssignments.Key, signedAt: Int64)
        /// Recorded already (or by an earlier item of the batch): mark it eligible and signed.
        case mark(SQLExperimentAssignments.Key, signedAt: Int64)
        /// Assigned to another arm: the record is not written.
        case assignedElsewhere(ExperimentAssignment)
    }

    /// The batch's request to the engine's writer went wrong for this item: its user's
    /// assignment that stands names another arm.
    struct AssignedElsewhere: Error {
        let stored: ExperimentAssignment
    }

    /// Inserts the batch's new assignments inside `db`'s open transaction and decides each
    /// item's part; nothing is read or written when no item carries an assignment that needs
    /// a write (a new one, or a recorded one not yet eligible and signed).
    /// `rowByRow`: one insert a row (``SQLExperimentAssignments/insertNew(_:_:rowByRow:)``).
    static func prepare(_ batch: [LogItem], _ db: some SQLConnection, rowByRow: Bool) throws -> SignatureBatchAssignments {
        guard batch.contains(where: { $0.assignment?.needsWrite == true }) else {
            return SignatureBatchAssignments(writes: batch.map(\.write), plans: [], repeats: false)
        }
        typealias Key = SQLExperimentAssignments.Key
        // The first item of each new user in the batch draws the row inserted; later ones follow it.
        var first: [Key: Int] = Dictionary(minimumCapacity: batch.count)
        var rows: [ExperimentAssignment] = []
        rows.reserveCapacity(batch.count)
        var repeats = false
        for (index, item) in batch.enumerated() {
            guard let signed = item.assignment, signed.previous == nil, case .append(let record, _) = item.write else { continue }
            let key = Key(signed.assignment)
            guard first[key] == nil else {
                repeats = true
                continue
            }
            first[key] = index
            var row = signed.assignment
            row.eligible = true
            row.firstSignedAt = record.timestamp
            rows.append(row)
        }
        rows.sort { ($0.bundleId, $0.experimentId, $0.userKey) < ($1.bundleId, $1.experimentId, $1.userKey) }
        let inserted: Set<Key> = try rows.isEmpty ? [] : SQLExperimentAssignments.insertNew(rows, db, rowByRow: rowByRow)
        var standing: [Key: ExperimentAssignment] = [:]
        // Only a user's later items in the batch look up a row inserted here.
        if repeats {
            for row in rows where inserted.contains(Key(row)) { standing[Key(row)] = row }
        }
        var plans: [Plan] = []
        plans.reserveCapacity(batch.count)
        var writes: [LogWrite] = []
        writes.reserveCapacity(batch.count)
        for (index, item) in batch.enumerated() {
            guard let signed = item.assignment, case .append(let record, _) = item.write else {
                plans.append(.nothing)
                writes.append(item.write)
                continue
            }
            let key = Key(signed.assignment)
            let plan: Plan
            if signed.previous != nil {
                plan = signed.needsWrite ? .mark(key, signedAt: record.timestamp) : .nothing
            } else if first[key] == index, inserted.contains(key) {
                plan = .inserted(key, signedAt: record.timestamp)
            } else {
                if standing[key] == nil { standing[key] = try SQLExperimentAssignments.stored(key, db) }
                if let stands = standing[key], stands.armId != signed.assignment.armId {
                    plan = .assignedElsewhere(stands)
                } else if let stands = standing[key], !inserted.contains(key), stands.eligible, stands.firstSignedAt != nil {
                    // Committed before this batch, eligible and signed already: a mark would change nothing.
                    plan = .nothing
                } else {
                    plan = .mark(key, signedAt: record.timestamp)
                }
            }
            plans.append(plan)
            if case .assignedElsewhere = plan { continue }
            writes.append(item.write)
        }
        return SignatureBatchAssignments(writes: writes, plans: plans, repeats: repeats)
    }

    /// The engine writer's `results` (one per item of ``writes``) as one per item of the
    /// batch, after recording what each appended or refused record means for its assignment.
    func finish(_ results: [Result<LoggedSignature?, any Error>],
                _ db: some SQLConnection) throws -> [Result<LoggedSignature?, any Error>] {
        guard !plans.isEmpty else { return results }
        var merged: [Result<LoggedSignature?, any Error>] = []
        merged.reserveCapacity(plans.count)
        var next = results.makeIterator()
        // Users whose row this transaction has left eligible and signed: a later item's mark would change nothing.
        var signed = Set<SQLExperimentAssignments.Key>()
        for plan in plans {
            if case .assignedElsewhere(let stored) = plan {
                merged.append(.failure(AssignedElsewhere(stored: stored)))
                continue
            }
            guard let result = next.next() else { break }
            merged.append(result)
            var appended = false
            if case .success(_?) = result { appended = true }
            switch plan {
            case .inserted(let key, let signedAt):
                if appended {
                    if repeats { signed.insert(key) }
                } else {
                    try SQLExperimentAssignments.unmarkSigned(key, signedAt: signedAt, db)
                }
            case .mark(let key, let signedAt):
                guard !signed.contains(key) else { break }
                try SQLExperimentAssignments.mark(key, eligible: true, signedAt: appended ? signedAt : nil, db)
                if appended, repeats { signed.insert(key) }
            case .nothing, .assignedElsewhere:
                break
            }
        }
        return merged
    }
}
