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
    static func canonicalBytes(of record: SignatureRecord, sequence: Int64, previousHash: String) -> [UInt8] {
        canonicalBytes(fields: [
            "offer-signer.signature.v1", previousHash, String(sequence), record.nonce, record.format.rawValue,
            record.bundleId, record.productId, record.offerId, record.userId, record.keyId,
            String(record.timestamp), record.signature, record.transactionId, record.apiKeyName,
            record.requestId, String(record.recordedAt),
        ])
    }

    /// SHA-256 (hex) of `fields` in the chain's canonical form (the first names the entry's kind).
    static func hash(fields: [String?]) -> String {
        SHA256Digest.hex(canonicalBytes(fields: fields))
    }

    /// Each field as `length:bytes;`, a missing one as `-;`.
    static func canonicalBytes(fields: [String?]) -> [UInt8] {
        var bytes: [UInt8] = []
        for field in fields {
            guard let field else {
                bytes.append(contentsOf: Array("-;".utf8))
                continue
            }
            bytes.append(contentsOf: Array("\(field.utf8.count):".utf8))
            bytes.append(contentsOf: Array(field.utf8))
            bytes.append(UInt8(ascii: ";"))
        }
        return bytes
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
