import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// A signature record as the audit API shows it.
struct SignatureRecordDocument: Encodable {
    let entry: LoggedSignature

    enum Keys: String, CodingKey {
        case sequence, nonce, format, bundleId, productId, offerId, userId, keyId, timestamp, signature, transactionId
        case apiKeyName, requestId, recordedAt, previousHash, hash
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let r = entry.record
        try c.encode(entry.sequence, forKey: .sequence)
        try c.encode(r.nonce, forKey: .nonce)
        try c.encode(r.format, forKey: .format)
        try c.encode(r.bundleId, forKey: .bundleId)
        try c.encode(r.productId, forKey: .productId)
        try c.encode(r.offerId, forKey: .offerId)
        try c.encode(r.userId, forKey: .userId)
        try c.encode(r.keyId, forKey: .keyId)
        try c.encode(r.timestamp, forKey: .timestamp)
        try c.encode(r.signature, forKey: .signature)
        try c.encode(r.transactionId, forKey: .transactionId)
        try c.encode(r.apiKeyName, forKey: .apiKeyName)
        try c.encode(r.requestId, forKey: .requestId)
        try c.encode(Date(milliseconds: r.recordedAt), forKey: .recordedAt)
        try c.encode(entry.previousHash, forKey: .previousHash)
        try c.encode(entry.hash, forKey: .hash)
    }

    /// The CSV columns, in order.
    static let csvHeader = ["sequence", "nonce", "format", "bundleId", "productId", "offerId", "userId", "keyId", "timestamp",
                            "signature", "transactionId", "apiKeyName", "requestId", "recordedAt", "previousHash", "hash"]

    var csvFields: [String] {
        let r = entry.record
        return [String(entry.sequence), r.nonce, r.format.rawValue, r.bundleId, r.productId, r.offerId, r.userId, r.keyId,
                String(r.timestamp), r.signature, r.transactionId ?? "", r.apiKeyName, r.requestId,
                RFC3339.string(from: Date(milliseconds: r.recordedAt)), entry.previousHash, entry.hash]
    }
}

/// An offer-rule change as the audit API shows it.
struct OfferChangeDocument: Encodable {
    let change: OfferChange

    enum Keys: String, CodingKey { case id, bundleId, offerId, version, action, apiKeyName, changedAt, before, after }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(change.id, forKey: .id)
        try c.encode(change.bundleId, forKey: .bundleId)
        try c.encode(change.offerId, forKey: .offerId)
        try c.encode(change.version, forKey: .version)
        try c.encode(change.action, forKey: .action)
        try c.encode(change.apiKeyName, forKey: .apiKeyName)
        try c.encode(change.changedAt, forKey: .changedAt)
        try c.encode(change.before, forKey: .before)
        try c.encode(change.after, forKey: .after)
    }
}

/// A page of items with the cursor of the next page (nil on the last).
struct Page<Item: Encodable>: Encodable {
    let items: [Item]
    let nextCursor: String?

    enum Keys: String, CodingKey { case items, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(items, forKey: .items)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}

/// Opaque page cursors: the last position served, as 8 big-endian bytes in base64url without
/// padding. Exactly the 11-character strings of `openapi.yaml`'s `Cursor` pattern decode: the
/// first character keeps the sign bit clear and the last leaves no stray bits.
enum PageCursor {
    static func encode(_ position: Int64) -> String {
        Base64URL.encode(withUnsafeBytes(of: UInt64(bitPattern: position).bigEndian) { Array($0) })
    }

    static func decode(_ cursor: String?) throws(HTTPProblem) -> Int64 {
        guard let cursor else { return 0 }
        let refusal = HTTPProblem.invalidRequest("'cursor' is not a cursor this service issued")
        guard cursor.utf8.count == 11, let data = Base64URL.decode(cursor), data.count == 8, data[data.startIndex] < 0x80 else {
            throw refusal
        }
        let position = data.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard encode(position) == cursor else { throw refusal }
        return position
    }
}

/// RFC 4180 CSV. A field that a spreadsheet would run as a formula (starting with `=`, `+`,
/// `-`, `@`, tab or carriage return; user IDs come from clients) gets a leading `'`. Both
/// checks look at code points, not characters: `=` or `,` followed by a combining mark is one
/// character to Swift, but still a formula or a separator to a spreadsheet.
enum CSV {
    static func row(_ fields: [String]) -> String {
        fields.map { field in
            let safe = field.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } == true ? "'" + field : field
            guard safe.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
                return safe
            }
            var quoted = String.UnicodeScalarView()
            quoted.append("\"")
            for scalar in safe.unicodeScalars {
                if scalar == "\"" { quoted.append("\"") }
                quoted.append(scalar)
            }
            quoted.append("\"")
            return String(quoted)
        }.joined(separator: ",") + "\r\n"
    }
}
