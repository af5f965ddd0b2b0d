/// The hash chain of the signature log: each record's hash commits to its position, every
/// field and the hash of the record before it, so a changed, removed or reordered record
/// breaks every link after it.
public enum SignatureChain {
    /// The `previousHash` of the first record.
    public static let genesis = String(repeating: "0", count: 64)

    /// SHA-256 (hex) over `previousHash` and the record's canonical bytes at `sequence`.
    public static func hash(of record: SignatureRecord, sequence: Int64, previousHash: String) -> String {
        SHA256Digest.hex(canonicalBytes(of: record, sequence: sequence, previousHash: previousHash))
    }

    /// Every field, length-prefixed, in a fixed order: no two different records share bytes.
    ///
    /// Two versions of the input, chosen by the record itself: a promotional offer asked for
    /// through the API (the only records there were before sources and introductory-offer
    /// eligibility existed) is hashed exactly as it always was (`v1`), so logs written by
    /// earlier builds still verify; any other record (`source` `retention`, format
    /// `introductory-offer-eligibility`) is hashed with `v2`, which also covers `source` and
    /// `allowIntroductoryOffer`. Changing a record from one kind to the other changes its
    /// version tag, so its hash no longer matches either way.
    ///
    /// Written field by field into one buffer, the integers' digits in place: the same bytes
    /// as ``canonicalBytes(fields:)`` of the record's fields with the integers as `String(_:)`
    /// writes them, without the array of fields and the three integer strings (issue 38: the
    /// serial writer makes these bytes for every record it appends).
    static func canonicalBytes(of record: SignatureRecord, sequence: Int64, previousHash: String) -> [UInt8] {
        let version1 = usesVersion1(record)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + previousHash.utf8.count + record.nonce.utf8.count + record.bundleId.utf8.count
            + record.productId.utf8.count + record.offerId.utf8.count + record.userId.utf8.count + record.keyId.utf8.count
            + record.signature.utf8.count + (record.transactionId?.utf8.count ?? 0) + record.apiKeyName.utf8.count
            + record.requestId.utf8.count)
        append(version1 ? "offer-signer.signature.v1" : "offer-signer.signature.v2", to: &bytes)
        append(previousHash, to: &bytes)
        append(decimal: sequence, to: &bytes)
        append(record.nonce, to: &bytes)
        append(record.format.rawValue, to: &bytes)
        if !version1 { append(record.source.rawValue, to: &bytes) }
        append(record.bundleId, to: &bytes)
        append(record.productId, to: &bytes)
        append(record.offerId, to: &bytes)
        append(record.userId, to: &bytes)
        append(record.keyId, to: &bytes)
        append(decimal: record.timestamp, to: &bytes)
        append(record.signature, to: &bytes)
        append(record.transactionId, to: &bytes)
        if !version1 { append(record.allowIntroductoryOffer.map { $0 ? "true" : "false" }, to: &bytes) }
        append(record.apiKeyName, to: &bytes)
        append(record.requestId, to: &bytes)
        append(decimal: record.recordedAt, to: &bytes)
        return bytes
    }

    /// SHA-256 (hex) of `fields` in the chain's canonical form (the first names the entry's kind).
    static func hash(fields: [String?]) -> String {
        SHA256Digest.hex(canonicalBytes(fields: fields))
    }

    /// Each field as `length:bytes;`, a missing one as `-;`. Written into one buffer: the
    /// group-commit writer hashes every record it appends.
    static func canonicalBytes(fields: [String?]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 8 })
        for field in fields { append(field, to: &bytes) }
        return bytes
    }

    /// One field: `length:bytes;`, or `-;` when missing.
    private static func append(_ field: String?, to bytes: inout [UInt8]) {
        guard let field else {
            bytes.append(UInt8(ascii: "-"))
            bytes.append(UInt8(ascii: ";"))
            return
        }
        appendDecimal(UInt64(field.utf8.count), to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: field.utf8)
        bytes.append(UInt8(ascii: ";"))
    }

    /// One field holding `value` as `String(value)` writes it (a `-` before a negative one).
    private static func append(decimal value: Int64, to bytes: inout [UInt8]) {
        let magnitude = value.magnitude
        var digits = 1
        var rest = magnitude
        while rest >= 10 { rest /= 10; digits += 1 }
        appendDecimal(UInt64(digits + (value < 0 ? 1 : 0)), to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDecimal(magnitude, to: &bytes)
        bytes.append(UInt8(ascii: ";"))
    }

    /// `value` in decimal ASCII digits.
    private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Whether `record` is of the kind every record was before version 2: a promotional offer
    /// (legacy or JWS) asked for through the API.
    static func usesVersion1(_ record: SignatureRecord) -> Bool {
        record.source == .api && record.format.promotionalOfferFormat != nil
            && record.allowIntroductoryOffer == nil
    }

    /// Checks `records` (in sequence order, starting at the first record) and returns the
    /// first that does not link, or nil when the chain is intact.
    public static func firstBrokenLink(in records: some Sequence<LoggedSignature>, expectedPrevious: inout String, expectedSequence: inout Int64) -> LoggedSignature? {
        for entry in records {
            let recomputed = hash(of: entry.record, sequence: entry.sequence, previousHash: entry.previousHash)
            if entry.sequence != expectedSequence || entry.previousHash != expectedPrevious || entry.hash != recomputed {
                return entry
            }
            expectedPrevious = entry.hash
            expectedSequence += 1
        }
        return nil
    }
}
