import Foundation
import OfferSignerCore

/// The signature log in PostgreSQL, one hash chain over every instance. Each instance
/// group-commits its appends: one writer thread takes every append waiting and writes them in
/// one transaction, which first locks the row of `signature_chain_head`. That lock orders the
/// batches of all instances, so each batch extends the chain from the end the previous batch
/// (of whichever instance) committed, sequence numbers stay consecutive, nonces are checked
/// against every committed record and the quota counts every instance's signatures. The
/// commit is synchronous (`synchronous_commit` on) before any caller gets its record.
public final class PostgreSQLSignatureLog: SignatureLog, Sendable {
    private let database: PostgreSQLDatabase
    private let committer: GroupCommitter<Append, LoggedSignature>

    public init(database: PostgreSQLDatabase) {
        self.database = database
        committer = GroupCommitter(name: "signature-log-writer") { batch in
            try database.write { db in try Self.write(batch, db) }
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
        switch committer.submit(Append(record: record, quota: quota)) {
        case .success(let logged):
            return logged
        case .failure(let error as SignatureLogError):
            throw error
        case .failure(let error):
            throw .unavailable(String(describing: error))
        }
    }

    /// Writes a batch inside the open transaction: locks the chain's end, refuses nonces
    /// already logged and appends beyond a quota, inserts the rest in one statement and moves
    /// the recorded end.
    private static func write(_ batch: [Append], _ db: PostgreSQLConnection) throws -> [Result<LoggedSignature, any Error>] {
        let headRow = try db.query("SELECT seq, hash FROM signature_chain_head WHERE id = 1 FOR UPDATE")
        guard headRow.count == 1 else { throw PostgreSQLError(message: "signature_chain_head has no row: the schema was changed by hand") }
        var head = (sequence: headRow[0].int64(0), hash: headRow[0].text(1))
        // Every insert holds the lock taken above, so no nonce can be logged meanwhile.
        let taken = Set(try db.query("SELECT nonce FROM signatures WHERE nonce = ANY($1::text[])",
                                     [.textArray(batch.map(\.record.nonce))]).map { $0.text(0) })
        var quotas = try QuotaWindow(batch, db)
        var seen = Set<String>()
        var results: [Result<LoggedSignature, any Error>] = []
        var rows: [LoggedSignature] = []
        for item in batch {
            let record = item.record
            guard !taken.contains(record.nonce), seen.insert(record.nonce).inserted else {
                results.append(.failure(SignatureLogError.unavailable("the nonce \(record.nonce) is already in the log")))
                continue
            }
            if let quota = item.quota, let retry = quotas.retryAfter(record, quota) {
                results.append(.failure(SignatureLogError.quotaExceeded(retryAfterSeconds: retry)))
                continue
            }
            let sequence = head.sequence + 1
            let hash = SignatureChain.hash(of: record, sequence: sequence, previousHash: head.hash)
            let logged = LoggedSignature(sequence: sequence, record: record, previousHash: head.hash, hash: hash)
            rows.append(logged)
            quotas.count(record)
            results.append(.success(logged))
            head = (sequence, hash)
        }
        guard !rows.isEmpty else { return results }
        try db.query("""
            INSERT INTO signatures (\(SignatureRows.columns))
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[], $16::text[])
            """, [
                .integerArray(rows.map(\.sequence)), .textArray(rows.map(\.record.nonce)), .textArray(rows.map(\.record.format.rawValue)),
                .textArray(rows.map(\.record.bundleId)), .textArray(rows.map(\.record.productId)), .textArray(rows.map(\.record.offerId)),
                .textArray(rows.map(\.record.userId)), .textArray(rows.map(\.record.keyId)), .integerArray(rows.map(\.record.timestamp)),
                .textArray(rows.map(\.record.signature)), .textArray(rows.map(\.record.transactionId)),
                .textArray(rows.map(\.record.apiKeyName)), .textArray(rows.map(\.record.requestId)),
                .integerArray(rows.map(\.record.recordedAt)), .textArray(rows.map(\.previousHash)), .textArray(rows.map(\.hash)),
            ])
        try db.query("UPDATE signature_chain_head SET seq = $1, hash = $2 WHERE id = 1", [.integer(head.sequence), .text(head.hash)])
        return results
    }

    public func signature(nonce: String) throws -> LoggedSignature? {
        try database.read { db in
            try db.query("\(SignatureRows.select) WHERE nonce = $1", [.text(nonce)]).map { try SignatureRows.logged($0) }.first
        }
    }

    public func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] {
        var clauses = ["seq > $1"]
        var values: [PostgreSQLValue] = [.integer(afterSequence)]
        func add(_ clause: String, _ value: PostgreSQLValue) {
            values.append(value)
            clauses.append("\(clause) $\(values.count)")
        }
        let equalities: [(String, String?)] = [
            ("user_id", filter.userId), ("offer_id", filter.offerId), ("product_id", filter.productId),
            ("bundle_id", filter.bundleId), ("key_id", filter.keyId),
        ]
        for (column, value) in equalities {
            if let value { add("\(column) =", .text(value)) }
        }
        if let from = filter.fromTimestamp { add("timestamp_ms >=", .integer(from)) }
        if let to = filter.toTimestamp { add("timestamp_ms <", .integer(to)) }
        values.append(.integer(Int64(max(0, limit))))
        let sql = "\(SignatureRows.select) WHERE \(clauses.joined(separator: " AND ")) ORDER BY seq LIMIT $\(values.count)"
        return try database.read { db in try db.query(sql, values).map { try SignatureRows.logged($0) } }
    }

    /// Walks the whole chain, a page at a time, in one read-only snapshot (records committed
    /// meanwhile by any instance are left for the next check).
    public func verifyIntegrity() throws -> IntegrityReport {
        try database.read { db in
            try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { try? db.execute("COMMIT") }
            let recorded = try db.query("SELECT seq, hash FROM signature_chain_head WHERE id = 1").map { (sequence: $0.int64(0), hash: $0.text(1)) }.first
            var verifier = ChainVerifier()
            var after = Int64.min
            while true {
                let page = try db.query("\(SignatureRows.select) WHERE seq > $1 ORDER BY seq LIMIT \(Self.pageSize)", [.integer(after)])
                for index in 0..<page.count { verifier.visit(page[index]) }
                guard page.count == Self.pageSize else { break }
                after = page[page.count - 1].int64(0)
            }
            return verifier.report(recordedEnd: recorded)
        }
    }

    /// Records read per page by `verifyIntegrity`.
    static let pageSize = 5000

    public func isReady() -> Bool {
        database.isReachable()
    }
}

/// One record waiting to be appended.
private struct Append {
    let record: SignatureRecord
    let quota: SignatureQuota?
}

/// The signatures a batch's quotas count: those committed in the widest window of the batch
/// for each (user, offer, app) with a quota, plus those the batch accepts as it goes.
private struct QuotaWindow {
    private struct Key: Hashable {
        let userId: String
        let offerId: String
        let bundleId: String

        init(userId: String, offerId: String, bundleId: String) {
            self.userId = userId
            self.offerId = offerId
            self.bundleId = bundleId
        }

        init(_ record: SignatureRecord) {
            self.init(userId: record.userId, offerId: record.offerId, bundleId: record.bundleId)
        }
    }

    /// Timestamps by key.
    private var times: [Key: [Int64]] = [:]

    init(_ batch: [Append], _ db: PostgreSQLConnection) throws {
        let limited = batch.filter { $0.quota != nil }
        guard let windowStart = limited.map({ $0.record.timestamp - $0.quota!.windowMilliseconds }).min() else { return }
        let keys = Array(Set(limited.map { Key($0.record) }))
        let rows = try db.query("""
            SELECT user_id, offer_id, bundle_id, timestamp_ms FROM signatures
            WHERE (user_id, offer_id, bundle_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[])) AND timestamp_ms > $4
            """, [.textArray(keys.map(\.userId)), .textArray(keys.map(\.offerId)), .textArray(keys.map(\.bundleId)), .integer(windowStart)])
        for index in 0..<rows.count {
            let row = rows[index]
            times[Key(userId: row.text(0), offerId: row.text(1), bundleId: row.text(2)), default: []].append(row.int64(3))
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
