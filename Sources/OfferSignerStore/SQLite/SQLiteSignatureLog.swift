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
    /// per app, user and offer: the same offer ID in another app has its own.
    private static func quotaRetryAfter(_ db: SQLiteConnection, _ record: SignatureRecord, _ quota: SignatureQuota) throws -> Int? {
        let windowStart = record.timestamp - quota.windowMilliseconds
        let times = try db.query("""
            SELECT timestamp_ms FROM signatures WHERE user_id = ? AND offer_id = ? AND bundle_id = ? AND timestamp_ms > ?
            ORDER BY timestamp_ms DESC LIMIT ?
            """, [.text(record.userId), .text(record.offerId), .text(record.bundleId), .integer(windowStart), .integer(Int64(max(quota.maxCount, 0)))]) { $0.int64(0) }
        guard times.count >= quota.maxCount else { return nil }
        // The oldest of the newest `maxCount` leaves the window first.
        let frees = (times.last ?? record.timestamp) + quota.windowMilliseconds
        return Int(max(1, (frees - record.timestamp + 999) / 1000))
    }

    public func signature(nonce: String) throws -> LoggedSignature? {
        try database.read { db in
            try db.query("\(SignatureRows.select) WHERE nonce = ?", [.text(nonce)]) { try SignatureRows.logged($0) }.first
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
        let sql = "\(SignatureRows.select) WHERE \(clauses.joined(separator: " AND ")) ORDER BY seq LIMIT ?"
        return try database.read { db in try db.query(sql, values) { try SignatureRows.logged($0) } }
    }

    public func verifyIntegrity() throws -> IntegrityReport {
        try database.read { db in
            var verifier = ChainVerifier()
            let statement = try db.statement("\(SignatureRows.select) ORDER BY seq")
            while try statement.step() { verifier.visit(SQLiteRow(statement: statement)) }
            let recorded = try db.query("SELECT seq, hash FROM signature_chain_head WHERE id = 1") { (sequence: $0.int64(0), hash: $0.text(1)) }.first
            return verifier.report(recordedEnd: recorded)
        }
    }

    public func isReady() -> Bool {
        (try? database.read { db in try db.scalar("SELECT 1") }) == 1
    }
}

/// One record waiting to be appended.
private struct PendingAppend {
    let record: SignatureRecord
    let quota: SignatureQuota?
}
