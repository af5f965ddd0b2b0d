import Foundation
import OfferSignerCore
import Synchronization

/// The signature log, one hash chain. Appends from many threads are group-committed: one
/// writer thread takes every append waiting and hands them to the engine's batch writer
/// (``SQLiteSignatureBatch``, ``PostgreSQLSignatureBatch``) in one transaction, which checks
/// that the chain still ends where the last commit recorded it, extends the hash chain,
/// checks the quotas and moves the recorded end; the commit is durable before any caller gets
/// its record. The writer is pipelined: on SQLite a batch commits without its own sync and the
/// WAL's syncer (``SQLiteWALSyncer``) syncs it, with every batch committed since its last sync,
/// while the writer commits the next; its callers are answered after that sync (a failed one
/// fails them, and every later append until a restart). PostgreSQL's commit is durable when it
/// returns (`synchronous_commit`). Reads, the integrity walk and accepted gaps are written once
/// (``SQLSignatures``).
///
/// A reader (a signature by nonce, an audit listing) may see a batch's records between its
/// commit and its sync (on PostgreSQL, a commit may be seen on the primary that its synchronous
/// standby never acknowledged: a cancelled wait); what leaves the process on the strength of a batch (its callers' answers,
/// a webhook's `offer.signed`: ``SQLDatabase/inTransactionReadingDurable(syncing:_:)``) waits.
final class SQLSignatureLog<Database: SQLDatabase>: RepairableSignatureLog, Sendable {
    let database: Database
    private let committer: GroupCommitter<LogItem, LoggedSignature?>
    let health: SignatureLogHealth
    /// Where `offer.signed` goes, prepared on the appending thread (nil: no outbox).
    private let outbox: WebhookOutbox?
    /// How long this process's batches waited for the chain lock (for measuring the design;
    /// on SQLite, whose writer is serial, they never wait).
    let chainLockWaits = ChainLockWaits()

    /// How often a readiness check may try a write while the log is failing.
    static var probeInterval: Duration { .seconds(1) }
    /// How long readiness stays off after a call found the database unavailable.
    static var unavailableWindow: Duration { .seconds(5) }

    /// What an engine's batch writer does inside the writer's open transaction: `committed` is
    /// the end this process last committed; one result per item of `batch`.
    typealias BatchWriter = @Sendable (_ batch: [LogWrite], _ db: Database.Connection, _ committed: ChainLink,
                                       _ waits: ChainLockWaits) throws -> [Result<LoggedSignature?, any Error>]

    /// Opens the log. One whose end does not match its recorded end opens, serves reads, and
    /// refuses appends (and readiness) until an operator acts.
    fileprivate init(_ database: Database, outbox: WebhookOutbox?, write: @escaping BatchWriter,
                 isConstraintViolation: @escaping @Sendable (any Error) -> Bool) throws {
        self.database = database
        let state = try database.withReader { db in try ChainHead.read(db) }
        let health = SignatureLogHealth(end: state.last, failure: state.mismatch.map { SignatureLogError.endMismatch($0).description })
        self.health = health
        self.outbox = outbox
        let waits = chainLockWaits
        committer = GroupCommitter(database: database, name: "signature-log-writer", observe: { outcome in
            health.record(outcome, isConstraintViolation: isConstraintViolation)
            if case .failure(let mismatch as ChainEndMismatch) = outcome { Self.recordRegression(mismatch, database, committed: health.committed, outbox: outbox) }
        }, pipelined: true) { batch, db in
            // Experiment assignments written with their signatures (none: nothing read or written).
            let assignments = try SignatureBatchAssignments.prepare(batch, db, rowByRow: !database.statementsAreRoundTrips)
            let results = try assignments.finish(try write(assignments.writes, db, health.committed, waits), db)
            database.writerStatistics.recordBatch(records: results.count(where: { if case .success(.some) = $0 { true } else { false } }))
            // `offer.signed` for the webhooks that take it, in the batch's own transaction.
            if let outbox, outbox.isSubscribed(.offerSigned) { try Self.announceSigned(batch, results, outbox, db) }
            return results
        }
    }

    deinit {
        committer.close()
    }

    /// Writes an `offer.signed` event of each record the batch appended into the outbox: the
    /// event its item prepared on the request's thread, numbered, or, for a record whose
    /// request found no webhook taking it (one subscribed since), one made here.
    private static func announceSigned(_ batch: [LogItem], _ results: [Result<LoggedSignature?, any Error>],
                                       _ outbox: WebhookOutbox, _ db: Database.Connection) throws {
        var events: [SignedEvent] = []
        events.reserveCapacity(results.count)
        for (index, result) in results.enumerated() {
            guard case .success(let logged?) = result else { continue }
            if let prepared = index < batch.count ? batch[index].event?.numbered(logged) : nil {
                events.append(prepared)
            } else if outbox.isSubscribed(.offerSigned, bundleId: logged.record.bundleId) {
                outbox.countMadeByWriter()
                events.append(SignedEvent(logged))
            }
        }
        if !events.isEmpty { try outbox.write(events, db, now: Date()) }
    }

    /// After a batch found the chain ending before what this process committed (the database
    /// went backwards: a failover to a standby that had not received the tail, a restore),
    /// records that end as the chain's recorded end, unless a further one is recorded: every
    /// instance then refuses appends, this one's restart does not forget the loss, and
    /// `audit accept-truncation` (a process of its own, without this one's memory) finds the
    /// lost range to record as an accepted gap. Nothing else is changed.
    private static func recordRegression(_ mismatch: ChainEndMismatch, _ database: Database, committed: ChainLink, outbox: WebhookOutbox?) {
        guard let vouched = mismatch.vouched, vouched == committed,
              (mismatch.recorded?.sequence ?? Int64.min) < vouched.sequence else { return }
        _ = try? database.inTransaction { db in
            try ChainHead.lock(db)
            let state = try ChainHead.read(db, committed: committed)
            guard state.last.sequence < committed.sequence, (state.recorded?.sequence ?? Int64.min) < committed.sequence else { return }
            try ChainHead.record(committed, db)
            if let outbox, outbox.isSubscribed(.chainIntegrityFailed) {
                try outbox.write([WebhookEvents.chainRegressed(end: state.last.sequence, committed: committed.sequence)], db, now: Date())
            }
        }
    }

    /// Stops the writer once the appends already waiting are written.
    public func close() {
        committer.close()
    }

    public func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature {
        try committer.submit(LogItem(write: .append(record, quota), announcing: outbox)).appended()
    }

    /// The record and the assignment go to the writer together: one transaction, one durable
    /// commit (``SignatureBatchAssignments``).
    public func append(_ record: SignatureRecord, quota: SignatureQuota?,
                       assigning assignment: SignedAssignment) throws(SignatureLogError) -> AssignedAppend {
        let receipt = AssignmentReceipt()
        let result = committer.submit(LogItem(write: .append(record, quota), assignment: assignment, receipt: receipt, announcing: outbox))
        if case .failure(let elsewhere as SignatureBatchAssignments.AssignedElsewhere) = result {
            return .assignedElsewhere(stored: elsewhere.stored)
        }
        return .appended(try result.appended(), newlyAssigned: receipt.inserted)
    }

    /// The records go to the writer together, so they are written in one batch: one
    /// transaction, one durable commit.
    public func append(all records: [SignatureRecord]) throws(SignatureLogError) -> [LoggedSignature] {
        var logged: [LoggedSignature] = []
        logged.reserveCapacity(records.count)
        for result in committer.submit(all: records.map { LogItem(write: .append($0, nil), announcing: outbox) }) {
            logged.append(try result.appended())
        }
        return logged
    }

    /// Not ready for ``unavailableWindow`` after any call found the database unavailable (a
    /// table locked past the statement deadline, a conflict, a lost connection). Otherwise
    /// ready when the database answers and the last batch committed; after a failed batch
    /// (the disk full, the database unreachable), not ready until a probe write, at most one a
    /// second, commits again: with traffic kept away, no append may come to show the log
    /// writable again.
    public func readiness() -> SignatureLogReadiness {
        if let recent = database.availability.recent(within: Self.unavailableWindow) {
            return .notReady(recent.description)
        }
        if let refusal = database.appendRefusal() {
            return .notReady("no signature can be recorded: \(refusal)")
        }
        guard let failure = health.failure(probeInterval: Self.probeInterval) else {
            let answer = try? database.withReader { db in try db.first("SELECT 1") { $0.int64(0) } }
            return answer == 1 ? .ready : .notReady("the database cannot be read")
        }
        guard failure.probeDue else { return .notReady(failure.reason) }
        return SignatureLogHealth.readiness(afterProbe: committer.submit(LogItem(write: .probe)))
    }

    /// The chain's end as this process last committed it; on PostgreSQL other instances may
    /// have extended the chain since.
    public func committedEnd() -> ChainLink {
        health.committed
    }

    public func signature(nonce: String) throws -> LoggedSignature? {
        try SQLSignatures.signature(nonce: nonce, database)
    }

    public func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] {
        try SQLSignatures.signatures(matching: filter, afterSequence: afterSequence, limit: limit, database)
    }

    /// Walks every record and accepted gap, a page at a time, in one read snapshot of the
    /// audit lane, so that a long walk never holds a connection signing needs (records
    /// committed meanwhile by any instance are left for the next check).
    public func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport {
        try database.withSnapshot { db in try SQLSignatures.walk(db, options) }
    }

    /// The accepted gaps, in sequence order.
    public func gaps() throws -> [ChainGap] {
        try database.withReader(.audit) { db in try SQLSignatures.gaps(db) }
    }

    /// See ``SQLSignatures/acceptTruncation(_:committed:by:reason:at:)``.
    public func acceptTruncation(by actor: String, reason: String, at time: Date) throws(TruncationRefusal) -> ChainGap {
        try SQLSignatures.acceptTruncation(database, committed: health.committed, by: actor, reason: reason, at: time)
    }

    static var selectColumns: String { SignatureRows.select }

    static func logged(_ row: some StoreRow) throws -> LoggedSignature {
        try SignatureRows.logged(row)
    }
}

extension SQLSignatureLog where Database == SQLiteDatabase {
    convenience init(database: SQLiteDatabase, outbox: WebhookOutbox? = nil) throws {
        try self.init(database, outbox: outbox, write: SQLiteSignatureBatch.write) { ($0 as? SQLiteError)?.isConstraintViolation == true }
    }
}

extension SQLSignatureLog where Database == PostgreSQLDatabase {
    convenience init(database: PostgreSQLDatabase, outbox: WebhookOutbox? = nil) throws {
        try self.init(database, outbox: outbox, write: { batch, db, committed, waits in
            try database.requireSynchronousStandby(db)
            return try PostgreSQLSignatureBatch.write(batch, db, committed: committed, waits: waits)
        }) { ($0 as? PostgreSQLError)?.isUniqueViolation == true }
    }
}

/// The log as SQLite's callers know it.
typealias SQLiteSignatureLog = SQLSignatureLog<SQLiteDatabase>
/// The log as PostgreSQL's callers know it.
typealias PostgreSQLSignatureLog = SQLSignatureLog<PostgreSQLDatabase>

/// What the writer is asked to do.
enum LogWrite: Sendable {
    /// Append a record, within the quota if one is given.
    case append(SignatureRecord, SignatureQuota?)
    /// Prove the log writable again: take the chain lock, check the chain's end and make a
    /// durable write that needs free pages, as an append would.
    case probe
}

/// The time batches spent waiting for the chain lock, and how many there were.
final class ChainLockWaits: Sendable {
    struct Totals: Sendable {
        var batches = 0
        var items = 0
        var waited: Duration = .zero
        var longest: Duration = .zero
    }

    private let totals = Mutex(Totals())

    func add(_ wait: Duration, batchSize: Int) {
        totals.withLock { totals in
            totals.batches += 1
            totals.items += batchSize
            totals.waited += wait
            totals.longest = max(totals.longest, wait)
        }
    }

    var current: Totals { totals.withLock { $0 } }
}
