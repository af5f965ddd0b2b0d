import OfferSignerCore

/// The columns of the `signatures` table and its rows decoded; the same for both engines.
enum SignatureRows {
    static let columns = """
        seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id, timestamp_ms, signature,
        transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash
        """

    static let select = "SELECT \(columns) FROM signatures"

    /// A row of ``columns``; a record whose format is not one this service writes was changed.
    static func logged(_ row: some StoreRow) throws -> LoggedSignature {
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

/// Walks the signature log's rows in sequence order and says whether the chain is intact:
/// the first changed, removed or reordered record, and records cut off the end (the walk
/// must end where the last commit recorded the end). Both engines verify through it.
struct ChainVerifier {
    private var previous = SignatureChain.genesis
    private var sequence: Int64 = 1
    private(set) var count = 0
    private var bad: LoggedSignature?
    private var unreadable: UnreadableSignatureRecord?

    /// Takes the next row (of ``SignatureRows/columns``); rows after the first bad one are
    /// only counted.
    mutating func visit(_ row: some StoreRow) {
        count += 1
        guard bad == nil, unreadable == nil else { return }
        do {
            let entry = try SignatureRows.logged(row)
            bad = SignatureChain.firstBrokenLink(in: [entry], expectedPrevious: &previous, expectedSequence: &sequence)
        } catch {
            unreadable = error as? UnreadableSignatureRecord
        }
    }

    /// The report once every row was visited, given the end of the chain as recorded by the
    /// last commit (sequence and hash), if any is recorded.
    func report(recordedEnd recorded: (sequence: Int64, hash: String)?) -> IntegrityReport {
        if let unreadable {
            return IntegrityReport(ok: false, records: count, problem: "\(unreadable.description): it was changed after it was written")
        }
        if let bad {
            return IntegrityReport(ok: false, records: count, firstBadRecord: bad, problem: describe(bad))
        }
        let end = (sequence: sequence - 1, hash: previous)
        if let recorded, recorded != end {
            return IntegrityReport(ok: false, records: count, problem: recorded.sequence > end.sequence
                ? "the log ends at record \(end.sequence) but was committed up to record \(recorded.sequence): records were removed from its end"
                : "the log's last record \(end.sequence) does not match the recorded end of the chain (record \(recorded.sequence))")
        }
        return IntegrityReport(ok: true, records: count)
    }

    private func describe(_ entry: LoggedSignature) -> String {
        if entry.sequence != sequence {
            return "record \(entry.sequence) stands where record \(sequence) was expected: records are missing or reordered"
        }
        if entry.previousHash != previous {
            return "record \(entry.sequence) does not link to the record before it"
        }
        return "record \(entry.sequence) was changed after it was written: its hash does not match its contents"
    }
}
