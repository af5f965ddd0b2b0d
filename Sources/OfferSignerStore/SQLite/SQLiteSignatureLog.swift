import Foundation
import OfferSignerCore

/// The signature log in SQLite. Appends from many threads are group-committed: a single
/// writer thread takes every append waiting, writes them in one transaction (extending the
/// hash chain and checking quotas), commits with a full sync, then wakes their callers.
public final class SQLiteSignatureLog: SignatureLog, Sendable {
    private let database: SQLiteDatabase
    private let committer: GroupCommitter<PendingAppend, LoggedSignature>

    public init(database: SQLiteDatabase) throws {
        self.database = database
        let head = try database.read { db in try ChainHead(reading: db) }
        committer = GroupCommitter(database: database, name: "signature-log-writer") { batch, db in
            try Self.write(batch, extending: head, db)
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
        switch committer.submit(PendingAppend(record: record, quota: quota)) {
        case .success(let logged):
            return logged
        case .failure(let error as SignatureLogError):
            throw error
        case .failure(let error):
            throw .unavailable(String(describing: error))
        }
    }

    /// Inserts a batch, extending the hash chain from `chain`'s committed head; the head
    /// moves with the batch, and `chain` notices at the next batch if this one rolled back.
    private static func write(_ batch: [PendingAppend], extending chain: ChainHead,
                              _ db: SQLiteConnection) throws -> [Result<LoggedSignature, any Error>] {
        var results: [Result<LoggedSignature, any Error>] = []
        results.reserveCapacity(batch.count)
        var head = try chain.committed(db)
        for item in batch {
            if let quota = item.quota, let retry = try quotaRetryAfter(db, item.record, quota) {
                results.append(.failure(SignatureLogError.quotaExceeded(retryAfterSeconds: retry)))
                continue
            }
            let sequence = head.sequence + 1
            let hash = SignatureChain.hash(of: item.record, sequence: sequence, previousHash: head.hash)
            let r = item.record
            try db.run("""
                INSERT INTO signatures (seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id,
                    timestamp_ms, signature, transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(sequence), .text(r.nonce), .text(r.format.rawValue), .text(r.bundleId), .text(r.productId),
                      .text(r.offerId), .text(r.userId), .text(r.keyId), .integer(r.timestamp), .text(r.signature),
                      .optional(r.transactionId), .text(r.apiKeyName), .text(r.requestId), .integer(r.recordedAt),
                      .text(head.hash), .text(hash)])
            results.append(.success(LoggedSignature(sequence: sequence, record: r, previousHash: head.hash, hash: hash)))
            head = ChainHead.Link(sequence: sequence, hash: hash)
        }
        try chain.advance(to: head, db)
        return results
    }

    /// Seconds until the quota frees a slot, or nil when the record fits in it. The quota is
    /// per app, user and offer: the same offer ID in another app has its own. A user without
    /// an app account token (empty `userId`) is their proven subscription (`transactionId`).
    private static func quotaRetryAfter(_ db: SQLiteConnection, _ record: SignatureRecord, _ quota: SignatureQuota) throws -> Int? {
        let windowStart = record.timestamp - quota.windowMilliseconds
        let sameSubscription = record.userId.isEmpty ? "AND transaction_id IS ?" : ""
        var values: [SQLiteValue] = [.text(record.userId), .text(record.offerId), .text(record.bundleId), .integer(windowStart)]
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
        try database.read { db in
            try db.query("\(Self.selectColumns) WHERE nonce = ?", [.text(nonce)], row: Self.logged).first
        }
    }

    public func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] {
        var clauses = ["seq > ?"]
        var values: [SQLiteValue] = [.integer(afterSequence)]
        let equalities: [(String, String?)] = [
            ("user_id", filter.userId), ("offer_id", filter.offerId), ("product_id", filter.productId),
            ("bundle_id", filter.bundleId), ("key_id", filter.keyId),
        ]
        for (column, value) in equalities {
            if let value {
                clauses.append("\(column) = ?")
                values.append(.text(value))
            }
        }
        if let from = filter.fromTimestamp {
            clauses.append("timestamp_ms >= ?")
            values.append(.integer(from))
        }
        if let to = filter.toTimestamp {
            clauses.append("timestamp_ms < ?")
            values.append(.integer(to))
        }
        values.append(.integer(Int64(limit)))
        let sql = "\(Self.selectColumns) WHERE \(clauses.joined(separator: " AND ")) ORDER BY seq LIMIT ?"
        return try database.read { db in try db.query(sql, values, row: Self.logged) }
    }

    public func verifyIntegrity() throws -> IntegrityReport {
        try database.read { db in
            var previous = SignatureChain.genesis
            var sequence: Int64 = 1
            var count = 0
            var bad: LoggedSignature?
            let statement = try db.statement("\(Self.selectColumns) ORDER BY seq")
            var unreadable: UnreadableSignatureRecord?
            while try statement.step() {
                count += 1
                guard bad == nil, unreadable == nil else { continue }
                do {
                    let entry = try Self.logged(SQLiteRow(statement: statement))
                    bad = SignatureChain.firstBrokenLink(in: [entry], expectedPrevious: &previous, expectedSequence: &sequence)
                } catch let error as UnreadableSignatureRecord {
                    unreadable = error
                }
            }
            if let unreadable {
                return IntegrityReport(ok: false, records: count, problem: "\(unreadable.description): it was changed after it was written")
            }
            if let bad {
                return IntegrityReport(ok: false, records: count, firstBadRecord: bad,
                                       problem: Self.describe(bad, expectedSequence: sequence, expectedPrevious: previous))
            }
            // The walk ended intact; it must end where the last commit said the chain ends.
            let recorded = try db.query("SELECT seq, hash FROM signature_chain_head WHERE id = 1") { ($0.int64(0), $0.text(1)) }.first
            let end = (sequence - 1, previous)
            if let recorded, recorded != end {
                return IntegrityReport(ok: false, records: count, problem: recorded.0 > end.0
                    ? "the log ends at record \(end.0) but was committed up to record \(recorded.0): records were removed from its end"
                    : "the log's last record \(end.0) does not match the recorded end of the chain (record \(recorded.0))")
            }
            return IntegrityReport(ok: true, records: count)
        }
    }

    public func isReady() -> Bool {
        (try? database.read { db in try db.scalar("SELECT 1") }) == 1
    }

    private static func describe(_ entry: LoggedSignature, expectedSequence: Int64, expectedPrevious: String) -> String {
        if entry.sequence != expectedSequence {
            return "record \(entry.sequence) stands where record \(expectedSequence) was expected: records are missing or reordered"
        }
        if entry.previousHash != expectedPrevious {
            return "record \(entry.sequence) does not link to the record before it"
        }
        return "record \(entry.sequence) was changed after it was written: its hash does not match its contents"
    }

    private static let selectColumns = """
        SELECT seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id, timestamp_ms, signature,
               transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash FROM signatures
        """

    private static func logged(_ row: SQLiteRow) throws -> LoggedSignature {
        guard let format = SignatureFormat(rawValue: row.text(2)) else {
            throw UnreadableSignatureRecord(sequence: row.int64(0), problem: "its format '\(row.text(2))' is neither legacy nor jws")
        }
        return LoggedSignature(
            sequence: row.int64(0),
            record: SignatureRecord(
                nonce: row.text(1), format: format, bundleId: row.text(3), productId: row.text(4),
                offerId: row.text(5), userId: row.text(6), keyId: row.text(7), timestamp: row.int64(8),
                signature: row.text(9), transactionId: row.optionalText(10), apiKeyName: row.text(11),
                requestId: row.text(12), recordedAt: row.int64(13)),
            previousHash: row.text(14), hash: row.text(15))
    }
}

/// A stored record that is not a record this service writes (its columns were changed).
struct UnreadableSignatureRecord: Error, CustomStringConvertible {
    let sequence: Int64
    let problem: String

    var description: String { "record \(sequence) cannot be read: \(problem)" }
}

/// One record waiting to be appended.
private struct PendingAppend {
    let record: SignatureRecord
    let quota: SignatureQuota?
}
