import Foundation
import OfferSignerCore

/// How the SQLite log writes a batch, in the one writer connection's IMMEDIATE transaction
/// (serial: no chain lock to take): a row per record, its quota counted by one indexed query
/// each, a nonce already logged refused by the unique index (failing the batch).
enum SQLiteSignatureBatch {
    /// Inserts a batch, extending the hash chain from its end, once that end is checked
    /// against the recorded one; the recorded end moves with the batch.
    static func write(_ batch: [LogWrite], _ db: SQLiteConnection, committed: ChainLink,
                      waits: ChainLockWaits) throws -> [Result<LoggedSignature?, any Error>] {
        var results: [Result<LoggedSignature?, any Error>] = []
        results.reserveCapacity(batch.count)
        let start = try ChainHead.verifiedEnd(db, committed: committed)
        var head = start
        for item in batch {
            guard case .append(let record, let quota) = item else {
                try SignatureLogProbe.write(db, filler: "zeroblob(4096)")
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
            try db.change("""
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
        let times = try db.select("""
            SELECT timestamp_ms FROM signatures WHERE user_id = ? AND offer_id = ? AND bundle_id = ? AND timestamp_ms > ? \(sameSubscription)
            ORDER BY timestamp_ms DESC LIMIT ?
            """, values) { $0.int64(0) }
        guard times.count >= quota.maxCount else { return nil }
        // The oldest of the newest `maxCount` leaves the window first.
        let frees = (times.last ?? record.timestamp) + quota.windowMilliseconds
        return Int(max(1, (frees - record.timestamp + 999) / 1000))
    }
}
