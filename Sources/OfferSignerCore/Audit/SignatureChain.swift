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
    static func canonicalBytes(of record: SignatureRecord, sequence: Int64, previousHash: String) -> [UInt8] {
        let fields: [String?]
        if usesVersion1(record) {
            fields = [
                "offer-signer.signature.v1", previousHash, String(sequence), record.nonce, record.format.rawValue,
                record.bundleId, record.productId, record.offerId, record.userId, record.keyId,
                String(record.timestamp), record.signature, record.transactionId, record.apiKeyName,
                record.requestId, String(record.recordedAt),
            ]
        } else {
            fields = [
                "offer-signer.signature.v2", previousHash, String(sequence), record.nonce, record.format.rawValue,
                record.source.rawValue, record.bundleId, record.productId, record.offerId, record.userId, record.keyId,
                String(record.timestamp), record.signature, record.transactionId,
                record.allowIntroductoryOffer.map { $0 ? "true" : "false" }, record.apiKeyName,
                record.requestId, String(record.recordedAt),
            ]
        }
        return canonicalBytes(fields: fields)
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
        for field in fields {
            guard let field else {
                bytes.append(UInt8(ascii: "-"))
                bytes.append(UInt8(ascii: ";"))
                continue
            }
            appendDecimal(field.utf8.count, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: field.utf8)
            bytes.append(UInt8(ascii: ";"))
        }
        return bytes
    }

    /// `value` (≥ 0) in decimal ASCII digits.
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var divisor = 1
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
