import Foundation
import OfferSignerCore
import Synchronization

/// The signature log in PostgreSQL, one hash chain over every instance. Each instance
/// group-commits its appends: one writer thread takes every append waiting and writes them in
/// one transaction, which first locks the row of `signature_chain_head`. That lock orders the
/// batches of all instances, so each batch extends the chain from the end the previous batch
/// (of whichever instance) committed, sequence numbers stay consecutive, nonces are checked
/// against every committed record and the quota counts every instance's signatures. The
/// commit is synchronous (`synchronous_commit` on) before any caller gets its record.
public final class PostgreSQLSignatureLog: SignatureLog, Sendable {
    let database: PostgreSQLDatabase
    private let committer: GroupCommitter<LogWrite, LoggedSignature?>
    let health: SignatureLogHealth
    /// How long this instance's batches waited for the chain lock (for measuring the design).
    let chainLockWaits = ChainLockWaits()

    /// How often a readiness check may try a write while the log is failing.
    static let probeInterval = Duration.seconds(1)

    /// Opens the log. One whose end does not match its recorded end opens, serves reads, and
    /// refuses appends (and readiness) until an operator acts.
    public init(database: PostgreSQLDatabase) throws {
        self.database = database
        let state = try database.read { db in try ChainHead.read(db) }
        let health = SignatureLogHealth(end: state.last, failure: state.mismatch.map { SignatureLogError.endMismatch($0).description })
        self.health = health
        let waits = chainLockWaits
        committer = GroupCommitter(name: "signature-log-writer", observe: { outcome in
            health.record(outcome) { ($0 as? PostgreSQLError)?.isUniqueViolation == true }
        }) { batch in
            try database.write { db in try Self.write(batch, db, committed: health.committed, waits: waits) }
        }
    }

    deinit {
        committer.close()
    }

    /// Stops the writer once the appends already waiting are written.
    public func close() {
        committer.close()
    }

    public func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature {
        try committer.submit(.append(record, quota)).appended()
    }

    /// Ready when the database answers and the last batch committed; after a failed batch
    /// (the database was unreachable, say), not ready until a probe write, at most one a
    /// second, commits again.
    public func readiness() -> SignatureLogReadiness {
        guard let failure = health.failure(probeInterval: Self.probeInterval) else {
            return database.isReachable() ? .ready : .notReady("the database cannot be reached")
        }
        guard failure.probeDue else { return .notReady(failure.reason) }
        return SignatureLogHealth.readiness(afterProbe: committer.submit(.probe))
    }

    /// The chain's end as this instance last committed it; other instances may have extended
    /// the chain since.
    public func committedEnd() -> ChainLink {
        health.committed
    }

    /// Writes a batch inside the open transaction: takes the chain lock, checks the chain's
    /// end against its recorded end, refuses nonces already logged and appends beyond a quota,
    /// inserts the rest in one statement and moves the recorded end.
    private static func write(_ batch: [LogWrite], _ db: PostgreSQLConnection, committed: ChainLink,
                              waits: ChainLockWaits) throws -> [Result<LoggedSignature?, any Error>] {
        let asked = ContinuousClock.now
        try ChainHead.lock(db)
        waits.add(ContinuousClock.now - asked, batchSize: batch.count)
        var head = try ChainHead.verifiedEnd(db, committed: committed)
        let appends = batch.compactMap { item -> Append? in
            guard case .append(let record, let quota) = item else { return nil }
            return Append(record: record, quota: quota)
        }
        // Every insert holds the chain lock, so no nonce can be logged meanwhile.
        let taken = appends.isEmpty ? [] : Set(try db.query("SELECT nonce FROM signatures WHERE nonce = ANY($1::text[])",
                                                             [.textArray(appends.map(\.record.nonce))]).map { $0.text(0) })
        var quotas = try QuotaWindow(appends, db)
        var seen = Set<String>()
        var results: [Result<LoggedSignature?, any Error>] = []
        var rows: [LoggedSignature] = []
        for item in batch {
            guard case .append(let record, let quota) = item else {
                try db.query("INSERT INTO signature_log_probe (filler) VALUES (decode(repeat('00', 4096), 'hex'))")
                try db.query("DELETE FROM signature_log_probe")
                results.append(.success(nil))
                continue
            }
            guard !taken.contains(record.nonce), seen.insert(record.nonce).inserted else {
                results.append(.failure(SignatureLogError.unavailable("the nonce \(record.nonce) is already in the log")))
                continue
            }
            if let quota, let retry = quotas.retryAfter(record, quota) {
                results.append(.failure(SignatureLogError.quotaExceeded(retryAfterSeconds: retry)))
                continue
            }
            let sequence = head.sequence + 1
            let hash = SignatureChain.hash(of: record, sequence: sequence, previousHash: head.hash)
            let logged = LoggedSignature(sequence: sequence, record: record, previousHash: head.hash, hash: hash)
            rows.append(logged)
            quotas.count(record)
            results.append(.success(logged))
            head = ChainLink(sequence: sequence, hash: hash)
        }
        guard !rows.isEmpty else { return results }
        try db.query("""
            INSERT INTO signatures (\(SignatureRows.columns))
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[], $16::text[],
                $17::text[], $18::bigint[])
            """, [
                .integerArray(rows.map(\.sequence)), .textArray(rows.map(\.record.nonce)), .textArray(rows.map(\.record.format.rawValue)),
                .textArray(rows.map(\.record.bundleId)), .textArray(rows.map(\.record.productId)), .textArray(rows.map(\.record.offerId)),
                .textArray(rows.map(\.record.userId)), .textArray(rows.map(\.record.keyId)), .integerArray(rows.map(\.record.timestamp)),
                .textArray(rows.map(\.record.signature)), .textArray(rows.map(\.record.transactionId)),
                .textArray(rows.map(\.record.apiKeyName)), .textArray(rows.map(\.record.requestId)),
                .integerArray(rows.map(\.record.recordedAt)), .textArray(rows.map(\.previousHash)), .textArray(rows.map(\.hash)),
                .textArray(rows.map(\.record.source.rawValue)),
                .integerArray(rows.map { row in row.record.allowIntroductoryOffer.map { $0 ? 1 : 0 } }),
            ])
        try ChainHead.record(head, db)
        return results
    }

    public func signature(nonce: String) throws -> LoggedSignature? {
        try SQLSignatures.signature(nonce: nonce, database)
    }

    public func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] {
        try SQLSignatures.signatures(matching: filter, afterSequence: afterSequence, limit: limit, database)
    }

    /// Walks every record and accepted gap, a page at a time, in one read-only snapshot of the
    /// audit lane (records committed meanwhile by any instance are left for the next check).
    public func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport {
        try database.withSnapshot { db in try SQLSignatures.walk(db, options) }
    }

    public func gaps() throws -> [ChainGap] {
        try database.read(.audit) { db in try SQLSignatures.gaps(db) }
    }
}

extension PostgreSQLSignatureLog: RepairableSignatureLog {
    /// See ``SQLSignatures/acceptTruncation(_:committed:by:reason:at:)``.
    public func acceptTruncation(by actor: String, reason: String, at time: Date) throws(TruncationRefusal) -> ChainGap {
        try SQLSignatures.acceptTruncation(database, committed: health.committed, by: actor, reason: reason, at: time)
    }
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

/// What the writer is asked to do.
private enum LogWrite: Sendable {
    /// Append a record, within the quota if one is given.
    case append(SignatureRecord, SignatureQuota?)
    /// Prove the log writable again: take the chain lock, check the chain's end and make a
    /// durable write, as an append would.
    case probe
}

/// One record waiting to be appended.
private struct Append {
    let record: SignatureRecord
    let quota: SignatureQuota?
}

/// The signatures a batch's quotas count: those committed in the widest window of the batch
/// for each (user, offer, app) with a quota, plus those the batch accepts as it goes. A record
/// with an empty user ID (a customer proven by an Apple-signed transaction) counts against its
/// `transactionId`, as the SQLite log counts it.
private struct QuotaWindow {
    private struct Key: Hashable {
        let userId: String
        let offerId: String
        let bundleId: String
        /// Only for an empty user ID: the proven subscription.
        let transactionId: String?

        init(userId: String, offerId: String, bundleId: String, transactionId: String?) {
            self.userId = userId
            self.offerId = offerId
            self.bundleId = bundleId
            self.transactionId = userId.isEmpty ? transactionId : nil
        }

        init(_ record: SignatureRecord) {
            self.init(userId: record.userId, offerId: record.offerId, bundleId: record.bundleId, transactionId: record.transactionId)
        }
    }

    /// Timestamps by key.
    private var times: [Key: [Int64]] = [:]

    init(_ batch: [Append], _ db: PostgreSQLConnection) throws {
        let limited = batch.filter { $0.quota != nil }
        guard let windowStart = limited.map({ $0.record.timestamp - $0.quota!.windowMilliseconds }).min() else { return }
        let keys = Array(Set(limited.map { Key($0.record) }))
        let rows = try db.query("""
            SELECT user_id, offer_id, bundle_id, transaction_id, timestamp_ms FROM signatures
            WHERE (user_id, offer_id, bundle_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[])) AND timestamp_ms > $4
            """, [.textArray(keys.map(\.userId)), .textArray(keys.map(\.offerId)), .textArray(keys.map(\.bundleId)), .integer(windowStart)])
        for index in 0..<rows.count {
            let row = rows[index]
            let key = Key(userId: row.text(0), offerId: row.text(1), bundleId: row.text(2), transactionId: row.optionalText(3))
            times[key, default: []].append(row.int64(4))
        }
    }

    /// Counts an accepted record.
    mutating func count(_ record: SignatureRecord) {
        times[Key(record), default: []].append(record.timestamp)
    }

    /// Seconds until the quota frees a slot for `record`, or nil when it fits (as the SQLite
    /// log computes it: the oldest of the newest `maxCount` in the window leaves it first).
    func retryAfter(_ record: SignatureRecord, _ quota: SignatureQuota) -> Int? {
        let windowStart = record.timestamp - quota.windowMilliseconds
        let newest = (times[Key(record)] ?? []).filter { $0 > windowStart }.sorted(by: >).prefix(max(quota.maxCount, 0))
        guard newest.count >= quota.maxCount else { return nil }
        let frees = (newest.last ?? record.timestamp) + quota.windowMilliseconds
        return Int(max(1, (frees - record.timestamp + 999) / 1000))
    }
}
