import Foundation
import OfferSignerCore
import Synchronization

/// What the signature log's writer is handed: a write, and for a placement inside an
/// experiment the user's assignment to record in the same commit, with where to tell the
/// request whether the commit inserted it.
struct LogItem: Sendable {
    var write: LogWrite
    var assignment: SignedAssignment?
    var receipt: AssignmentReceipt?
    /// The record's `offer.signed`, prepared on the request's thread when a webhook took it then
    /// (nil: none did, or no record); the writer numbers it and writes it in the batch.
    var event: SignedEvent?

    /// `announcing`: the outbox, to prepare the record's `offer.signed` for if a webhook takes it.
    init(write: LogWrite, assignment: SignedAssignment? = nil, receipt: AssignmentReceipt? = nil, announcing outbox: WebhookOutbox? = nil) {
        self.write = write
        self.assignment = assignment
        self.receipt = receipt
        if let outbox, case .append(let record, _) = write { event = outbox.prepareSigned(record) }
    }
}

/// Whether an item's commit inserted its user's assignment (a user new to the experiment):
/// set by the writer, read by the request once its batch committed.
final class AssignmentReceipt: Sendable {
    private let insertedFlag = Atomic<Bool>(false)

    /// Whether the commit inserted the assignment.
    var inserted: Bool { insertedFlag.load(ordering: .acquiring) }

    fileprivate func markInserted() {
        insertedFlag.store(true, ordering: .releasing)
    }
}

/// The experiment assignments a signature batch records in its own transaction, so a
/// placement inside an experiment costs no commit of its own (engine-independent: it wraps
/// the engine's batch writer, which never sees the assignments).
///
/// Before the records are written, the batch's new users are inserted, eligible and first
/// signed at their record's timestamp; a user whose first assignment is already committed
/// (another request, another instance) keeps it. On SQLite a statement each — a user the
/// request did not read (``SignedAssignment/previousRead``) is read first, on the writer's
/// connection inside the batch's transaction, and inserted when absent; on PostgreSQL one
/// statement per 64 users, then a read of each not inserted. A record
/// whose user turns out assigned to another arm — by another request drawn under other
/// weights, committed first or earlier in this batch — is not written: its request is told
/// the assignment that stands. After the records are written, a new assignment whose record
/// the log refused (the quota) is no longer marked signed, and a recorded assignment is marked
/// eligible and signed as its record says — unless its row is known to be both already (a
/// user's second request in the batch, or one whose first committed since it read the
/// assignment): then nothing is written for it. One hash chain, the quota and durability are
/// the engine writer's, untouched.
///
/// The bookkeeping is by the batch's items (arrays), not by user keys: a batch's items of one
/// new user form a group led by its first item, found by sorting the items by key.
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
        /// Inserted here, first signed at the record's timestamp; `group`: the batch index of
        /// the user's first item (this one).
        case inserted(SQLExperimentAssignments.Key, signedAt: Int64, group: Int, receipt: AssignmentReceipt?)
        /// Recorded already (or by an earlier item of the batch): mark it eligible and signed.
        /// `group`: the batch index of the user's first item when the request read no
        /// assignment, else -1.
        case mark(SQLExperimentAssignments.Key, signedAt: Int64, group: Int)
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
    /// a write (a new one, one not read, or a recorded one not yet eligible and signed).
    /// `rowByRow`: one statement a row (``SQLExperimentAssignments/insertOne(_:_:)``), where a
    /// statement is a call into the process (SQLite).
    static func prepare(_ batch: [LogItem], _ db: some SQLConnection, rowByRow: Bool) throws -> SignatureBatchAssignments {
        guard batch.contains(where: { $0.assignment?.needsWrite == true }) else {
            return SignatureBatchAssignments(writes: batch.map(\.write), plans: [], repeats: false)
        }
        typealias Key = SQLExperimentAssignments.Key
        // The items of users with no assignment read, in key order (then batch order).
        var users: [Int] = []
        users.reserveCapacity(batch.count)
        for (index, item) in batch.enumerated() {
            guard let signed = item.assignment, signed.previous == nil, case .append = item.write else { continue }
            users.append(index)
        }
        users.sort { a, b in
            let order = Self.keyOrder(batch[a].assignment!.assignment, batch[b].assignment!.assignment)
            return order != 0 ? order < 0 : a < b
        }
        // Each such item's group (the batch index of the user's first item); the groups' rows.
        var group = [Int](repeating: -1, count: batch.count)
        var leaders: [Int] = []
        leaders.reserveCapacity(users.count)
        var repeats = false
        for index in users {
            if let leader = leaders.last, Self.keyOrder(batch[leader].assignment!.assignment, batch[index].assignment!.assignment) == 0 {
                group[index] = leader
                repeats = true
            } else {
                group[index] = index
                leaders.append(index)
            }
        }
        // By group leader: inserted here, or the row that stands (nil: not found).
        var inserted = [Bool](repeating: false, count: batch.count)
        var standing = [ExperimentAssignment?](repeating: nil, count: batch.count)
        func row(_ leader: Int) -> ExperimentAssignment {
            var row = batch[leader].assignment!.assignment
            row.eligible = true
            if case .append(let record, _) = batch[leader].write { row.firstSignedAt = record.timestamp }
            return row
        }
        if rowByRow {
            for leader in leaders {
                let signed = batch[leader].assignment!
                let key = Key(signed.assignment)
                if !signed.previousRead, let stored = try SQLExperimentAssignments.stored(key, db) {
                    standing[leader] = stored
                    continue
                }
                let new = row(leader)
                if try SQLExperimentAssignments.insertOne(new, db) {
                    inserted[leader] = true
                    standing[leader] = new
                } else {
                    standing[leader] = try SQLExperimentAssignments.stored(key, db)
                }
            }
        } else if !leaders.isEmpty {
            let rows = leaders.map(row)
            for (leader, (new, wasInserted)) in zip(leaders, zip(rows, try SQLExperimentAssignments.insertNew(rows, db))) {
                inserted[leader] = wasInserted
                standing[leader] = wasInserted ? new : try SQLExperimentAssignments.stored(Key(new), db)
            }
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
            let leader = group[index]
            if signed.previous != nil {
                plan = signed.needsWrite ? .mark(key, signedAt: record.timestamp, group: -1) : .nothing
            } else if leader == index, inserted[leader] {
                plan = .inserted(key, signedAt: record.timestamp, group: leader, receipt: item.receipt)
            } else if let stands = standing[leader], stands.armId != signed.assignment.armId {
                plan = .assignedElsewhere(stands)
            } else if let stands = standing[leader], !inserted[leader], stands.eligible, stands.firstSignedAt != nil {
                // Committed before this batch, eligible and signed already: a mark would change nothing.
                plan = .nothing
            } else {
                plan = .mark(key, signedAt: record.timestamp, group: leader)
            }
            plans.append(plan)
            if case .assignedElsewhere = plan { continue }
            writes.append(item.write)
        }
        return SignatureBatchAssignments(writes: writes, plans: plans, repeats: repeats)
    }

    /// -1, 0 or 1 as `a`'s key (app, experiment, user) comes before `b`'s, is it, or comes
    /// after it: the order of the tuples of the three strings.
    private static func keyOrder(_ a: ExperimentAssignment, _ b: ExperimentAssignment) -> Int {
        if a.bundleId != b.bundleId { return a.bundleId < b.bundleId ? -1 : 1 }
        if a.experimentId != b.experimentId { return a.experimentId < b.experimentId ? -1 : 1 }
        if a.userKey != b.userKey { return a.userKey < b.userKey ? -1 : 1 }
        return 0
    }

    /// The engine writer's `results` (one per item of ``writes``) as one per item of the
    /// batch, after recording what each appended or refused record means for its assignment.
    func finish(_ results: [Result<LoggedSignature?, any Error>],
                _ db: some SQLConnection) throws -> [Result<LoggedSignature?, any Error>] {
        guard !plans.isEmpty else { return results }
        var merged: [Result<LoggedSignature?, any Error>] = []
        merged.reserveCapacity(plans.count)
        var next = results.makeIterator()
        // By group leader: the user's row this transaction has left eligible and signed (a later item's mark would change nothing).
        var signed = repeats ? [Bool](repeating: false, count: plans.count) : []
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
            case .inserted(let key, let signedAt, let group, let receipt):
                if appended {
                    receipt?.markInserted()
                    if repeats { signed[group] = true }
                } else {
                    try SQLExperimentAssignments.unmarkSigned(key, signedAt: signedAt, db)
                }
            case .mark(let key, let signedAt, let group):
                guard group < 0 || !repeats || !signed[group] else { break }
                try SQLExperimentAssignments.mark(key, eligible: true, signedAt: appended ? signedAt : nil, db)
                if appended, repeats, group >= 0 { signed[group] = true }
            case .nothing, .assignedElsewhere:
                break
            }
        }
        return merged
    }
}
