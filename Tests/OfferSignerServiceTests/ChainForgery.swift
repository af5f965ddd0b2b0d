import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerService
@testable import OfferSignerStore
import Synchronization

/// What someone with write access to the database file can do to the signature log, done
/// with the same SQL the writer uses.
enum ChainForgery {
    /// Changes records through `change` and recomputes every hash after them and the recorded
    /// end: a rewrite that the hash chain alone cannot tell from the original.
    static func rewrite(_ database: SQLiteDatabase, change: (Int64, inout SignatureRecord) -> Void) throws {
        let entries = try database.read { db in try db.query("\(SQLiteSignatureLog.selectColumns) ORDER BY seq", row: SQLiteSignatureLog.logged) }
        try database.write { db in
            var previous = SignatureChain.genesis
            for entry in entries {
                var record = entry.record
                change(entry.sequence, &record)
                let hash = SignatureChain.hash(of: record, sequence: entry.sequence, previousHash: previous)
                try db.run("UPDATE signatures SET user_id = ?, offer_id = ?, product_id = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                           [.text(record.userId), .text(record.offerId), .text(record.productId), .text(previous), .text(hash),
                            .integer(entry.sequence)])
                previous = hash
            }
            try db.run("UPDATE signature_chain_head SET hash = ? WHERE id = 1", [.text(previous)])
        }
    }

    /// Appends `records` in one transaction, chained and with the recorded end moved, as the
    /// writer would (a quick way to a large log).
    static func append(_ records: [SignatureRecord], to database: SQLiteDatabase) throws {
        try database.write { db in
            var head = try db.query("SELECT seq, hash FROM signature_chain_head WHERE id = 1") { ChainLink(sequence: $0.int64(0), hash: $0.text(1)) }.first
                ?? .genesis
            for r in records {
                let sequence = head.sequence + 1
                let hash = SignatureChain.hash(of: r, sequence: sequence, previousHash: head.hash)
                try db.run("""
                    INSERT INTO signatures (seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id,
                        timestamp_ms, signature, transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(sequence), .text(r.nonce), .text(r.format.rawValue), .text(r.bundleId), .text(r.productId),
                          .text(r.offerId), .text(r.userId), .text(r.keyId), .integer(r.timestamp), .text(r.signature),
                          .optional(r.transactionId), .text(r.apiKeyName), .text(r.requestId), .integer(r.recordedAt),
                          .text(head.hash), .text(hash)])
                head = ChainLink(sequence: sequence, hash: hash)
            }
            try db.run("""
                INSERT INTO signature_chain_head (id, seq, hash) VALUES (1, ?, ?)
                ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
                """, [.integer(head.sequence), .text(head.hash)])
        }
    }

    /// `count` records legacy-signed by `signer` (each a real signature over its own fields).
    static func signedRecords(_ count: Int, signer: PromotionalOfferSigner, bundleId: String, productId: String) throws -> [SignatureRecord] {
        try (0..<count).map { n in
            let offer = PromotionalOfferRequest(bundleId: bundleId, keyIdentifier: signer.keyIdentifier, productId: productId,
                                                offerId: "winback", appAccountToken: "bulk-\(n)", nonce: UUID().uuidString.lowercased(),
                                                timestamp: 1_800_000_000_000 + Int64(n))
            return SignatureRecord(try signer.issue(offer, format: .legacy), apiKeyName: "client-key", requestId: "bulk", recordedAt: offer.timestamp)
        }
    }
}

/// Log lines written by a `Logger`, kept for a test to read.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger { Logger(minimumLevel: .error) { [self] line in lines.withLock { $0.append(line) } } }

    /// Keeps `line` (for a logger of another level).
    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// Every line as a JSON object.
    var objects: [[String: Any]] {
        lines.withLock { $0 }.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
