import Foundation
import OfferSignerCore

/// The signature log in SQLite. Appends from many threads are group-committed: a single
/// writer thread takes every append waiting, checks that the chain still ends where the last
/// commit recorded it, writes them in one transaction (extending the hash chain and checking
/// quotas), commits with a full sync, then wakes their callers.
public final class SQLiteSignatureLog: SignatureLog, Sendable {
    let database: SQLiteDatabase
    private let committer: GroupCommitter<LogWrite, LoggedSignature?>
    let health: SignatureLogHealth

    /// How often a readiness check may try a write while the log is failing.
    static let probeInterval = Duration.seconds(1)

    /// Opens the log. One whose end does not match its recorded end opens, serves reads, and
    /// refuses appends (and readiness) until an operator acts.
    public init(database: SQLiteDatabase) throws {
        self.database = database
        let state = try database.read { db in try ChainHead.read(db) }
        let health = SignatureLogHealth(end: state.last, failure: state.mismatch.map { SignatureLogError.endMismatch($0).description })
        self.health = health
        committer = GroupCommitter(database: database, name: "signature-log-writer", observe: { outcome in
            health.record(outcome) { ($0 as? SQLiteError)?.isConstraintViolation == true }
        }) { batch, db in
            try Self.write(batch, db, committed: health.committed)
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

    public func readiness() -> SignatureLogReadiness {
        guard let failure = health.failure(probeInterval: Self.probeInterval) else {
            return (try? database.read { db in try db.scalar("SELECT 1") }) == 1 ? .ready : .notReady("the database cannot be read")
        }
        guard failure.probeDue else { return .notReady(failure.reason) }
        // With traffic kept away, no append may come to show the log writable again: try a
        // durable write that needs what an append needs.
        return SignatureLogHealth.readiness(afterProbe: committer.submit(.probe))
    }

    public func committedEnd() -> ChainLink {
        health.committed
    }

    /// Inserts a batch, extending the hash chain from its end, once that end is checked
    /// against the recorded one; the recorded end moves with the batch.
    private static func write(_ batch: [LogWrite], _ db: SQLiteConnection, committed: ChainLink) throws -> [Result<LoggedSignature?, any Error>] {
        var results: [Result<LoggedSignature?, any Error>] = []
        results.reserveCapacity(batch.count)
        let start = try ChainHead.verifiedEnd(db, committed: committed)
        var head = start
        for item in batch {
            guard case .append(let record, let quota) = item else {
                try db.run("INSERT INTO signature_log_probe (filler) VALUES (zeroblob(4096))")
                try db.run("DELETE FROM signature_log_probe")
                results.append(.success(nil))
                continue
            }
            if let quota, let retry = try quotaRetryAfter(db, record, quota) {
                results.append(.failure(SignatureLogError.quotaExceeded(retryAfterSeconds: retry)))
                continue
            }
            let sequence = head.sequence + 1
            let hash = SignatureChain.hash(of: record, sequence: sequence, previousHash: head.hash)
            let r = record
            try db.run("""
                INSERT INTO signatures (seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id,
                    timestamp_ms, signature, transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash,
                    source, allow_introductory_offer)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(sequence), .text(r.nonce), .text(r.format.rawValue), .text(r.bundleId), .text(r.productId),
                      .text(r.offerId), .text(r.userId), .text(r.keyId), .integer(r.timestamp), .text(r.signature),
                      .optional(r.transactionId), .text(r.apiKeyName), .text(r.requestId), .integer(r.recordedAt),
                      .text(head.hash), .text(hash), .text(r.source.rawValue),
                      .optional(r.allowIntroductoryOffer.map { $0 ? 1 : 0 })])
            results.append(.success(LoggedSignature(sequence: sequence, record: r, previousHash: head.hash, hash: hash)))
            head = ChainLink(sequence: sequence, hash: hash)
        }
        if head != start { try ChainHead.record(head, db) }
        return results
    }

    /// Seconds until the quota frees a slot, or nil when the record fits in it. The quota is
    /// per app, user and offer: the same offer ID in another app has its own. A user without
    /// an app account token (empty `userId`) is their proven subscription (`transactionId`).
    private static func quotaRetryAfter(_ db: SQLiteConnection, _ record: SignatureRecord, _ quota: SignatureQuota) throws -> Int? {
        let windowStart = record.timestamp - quota.windowMilliseconds
        let sameSubscription = record.userId.isEmpty ? "AND transaction_id IS ?" : ""
        var values: [SQLValue] = [.text(record.userId), .text(record.offerId), .text(record.bundleId), .integer(windowStart)]
        if record.userId.isEmpty { values.append(.optional(record.transactionId)) }
        values.append(.integer(Int64(max(quota.maxCount, 0))))
        let times = try db.query("""
            SELECT timestamp_ms FROM signatures WHERE user_id = ? AND offer_id = ? AND bundle_id = ? AND timestamp_ms > ? \(sameSubscription)
            ORDER BY timestamp_ms DESC LIMIT ?
            """, values) { $0.int64(0) }
        guard times.count >= quota.maxCount else { return nil }
        // The oldest of the newest `maxCount` leaves the window first.
        let frees = (times.last ?? record.timestamp) + quota.windowMilliseconds
        return Int(max(1, (frees - record.timestamp + 999) / 1000))
    }

    public func signature(nonce: String) throws -> LoggedSignature? {
        try SQLSignatures.signature(nonce: nonce, database)
    }

    public func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] {
        try SQLSignatures.signatures(matching: filter, afterSequence: afterSequence, limit: limit, database)
    }

    /// Walks every record and accepted gap in one read snapshot of the audit lane, so that a
    /// long walk never holds a connection signing needs.
    public func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport {
        try database.withSnapshot { db in try SQLSignatures.walk(db, options) }
    }

    public func gaps() throws -> [ChainGap] {
        try database.read(.audit) { db in try SQLSignatures.gaps(db) }
    }

    /// See ``SQLSignatures/acceptTruncation(_:committed:by:reason:at:)``.
    public func acceptTruncation(by actor: String, reason: String, at time: Date) throws(TruncationRefusal) -> ChainGap {
        try SQLSignatures.acceptTruncation(database, committed: health.committed, by: actor, reason: reason, at: time)
    }

    static let selectColumns = SignatureRows.select

    static func logged(_ row: SQLiteRow) throws -> LoggedSignature {
        try SignatureRows.logged(row)
    }
}

/// What the writer is asked to do.
private enum LogWrite: Sendable {
    /// Append a record, within the quota if one is given.
    case append(SignatureRecord, SignatureQuota?)
    /// Prove the log writable again: check the chain's end and make a durable write that
    /// needs free pages (a row inserted and deleted), as an append would.
    case probe
}
