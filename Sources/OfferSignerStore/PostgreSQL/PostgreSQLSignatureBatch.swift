import Foundation
import OfferSignerCore

/// How the PostgreSQL log writes a batch, one hash chain over every instance: the batch's
/// transaction first takes the chain lock, which orders the batches of all instances, so each
/// extends the chain from the end the previous batch (of whichever instance) committed,
/// sequence numbers stay consecutive, nonces are checked against every committed record and
/// the quota counts every instance's signatures; the records go in with one statement.
enum PostgreSQLSignatureBatch {
    /// Writes a batch inside the open transaction: takes the chain lock, checks the chain's
    /// end against its recorded end, refuses nonces already logged and appends beyond a quota,
    /// inserts the rest in one statement and moves the recorded end.
    static func write(_ batch: [LogWrite], _ db: PostgreSQLConnection, committed: ChainLink,
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
        let taken = appends.isEmpty ? [] : Set(try db.select("SELECT nonce FROM signatures WHERE nonce = ANY(?::text[])",
                                                              [.textArray(appends.map(\.record.nonce))]) { $0.text(0) })
        var quotas = try QuotaWindow(appends, db)
        var seen = Set<String>()
        var results: [Result<LoggedSignature?, any Error>] = []
        var rows: [LoggedSignature] = []
        for item in batch {
            guard case .append(let record, let quota) = item else {
                try SignatureLogProbe.write(db, filler: "decode(repeat('00', 4096), 'hex')")
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
        try db.change("""
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
}

/// One record waiting to be appended.
private struct Append {
    let record: SignatureRecord
    let quota: SignatureQuota?
}

/// The signatures a batch's quotas count: those committed in the widest window of the batch
/// for each (user, offer, app) with a quota, plus those the batch accepts as it goes. A record
/// with an empty user ID (a customer proven by an Apple-signed transaction) counts against its
/// `transactionId`, as ``SQLiteSignatureBatch`` counts it.
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
        let rows = try db.select("""
            SELECT user_id, offer_id, bundle_id, transaction_id, timestamp_ms FROM signatures
            WHERE (user_id, offer_id, bundle_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[])) AND timestamp_ms > $4
            """, [.textArray(keys.map(\.userId)), .textArray(keys.map(\.offerId)), .textArray(keys.map(\.bundleId)), .integer(windowStart)]) { row in
            (Key(userId: row.text(0), offerId: row.text(1), bundleId: row.text(2), transactionId: row.optionalText(3)), row.int64(4))
        }
        for (key, time) in rows { times[key, default: []].append(time) }
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
