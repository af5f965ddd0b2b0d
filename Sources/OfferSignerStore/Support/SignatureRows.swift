import OfferSignerCore

/// The columns of the `signatures` table and its rows decoded; the same for both engines.
enum SignatureRows {
    static let columns = """
        seq, nonce, format, bundle_id, product_id, offer_id, user_id, key_id, timestamp_ms, signature,
        transaction_id, api_key_name, request_id, recorded_at_ms, prev_hash, hash, source, allow_introductory_offer
        """

    static let select = "SELECT \(columns) FROM signatures"

    /// A row of ``columns``; a record whose format or source is not one this service writes was changed.
    static func logged(_ row: some StoreRow) throws -> LoggedSignature {
        guard let format = SignatureFormat(rawValue: row.text(2)) else {
            throw UnreadableSignatureRecord(sequence: row.int64(0), problem: "its format '\(row.text(2))' is not one this service writes")
        }
        guard let source = SignatureSource(rawValue: row.text(16)) else {
            throw UnreadableSignatureRecord(sequence: row.int64(0), problem: "its source '\(row.text(16))' is not one this service writes")
        }
        return LoggedSignature(
            sequence: row.int64(0),
            record: SignatureRecord(
                nonce: row.text(1), format: format, bundleId: row.text(3), productId: row.text(4),
                offerId: row.text(5), userId: row.text(6), keyId: row.text(7), timestamp: row.int64(8),
                signature: row.text(9), transactionId: row.optionalText(10), apiKeyName: row.text(11),
                requestId: row.text(12), recordedAt: row.int64(13), source: source,
                allowIntroductoryOffer: row.optionalInt64(17).map { $0 != 0 }),
            previousHash: row.text(14), hash: row.text(15))
    }
}

/// A stored record that is not a record this service writes (its columns were changed).
struct UnreadableSignatureRecord: Error, CustomStringConvertible {
    let sequence: Int64
    let problem: String

    var description: String { "record \(sequence) cannot be read: \(problem)" }
}
