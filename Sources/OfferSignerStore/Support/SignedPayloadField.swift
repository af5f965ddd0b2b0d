import Foundation
import OfferSignerCore

/// Reads one field of a stored signed JWS's payload again, without verifying it (it was
/// verified before it was stored): for fields the history's columns do not keep, such as a
/// transaction's `currency`.
enum SignedPayloadField {
    /// The string field `name` of the JWS's payload; nil when absent or not a string.
    static func string(_ name: String, inJWS jws: String) -> String? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        return object[name] as? String
    }

    /// The payload's `currency` (three characters), found by scanning the decoded payload for
    /// the member rather than parsing the whole JSON (a report reads it of every paid period);
    /// a payload the scan cannot read (escapes, another shape) is parsed whole.
    static func currency(inJWS jws: String) -> String? {
        let utf8 = jws.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ".")),
              let second = utf8[utf8.index(after: first)...].firstIndex(of: UInt8(ascii: ".")),
              let payload = Base64URL.decode(utf8: utf8[utf8.index(after: first)..<second]) else { return nil }
        let bytes = [UInt8](payload)
        let key = Array(#""currency""#.utf8)
        var index = 0
        while index + key.count <= bytes.count {
            if bytes[index] == key[0], Array(bytes[index..<(index + key.count)]) == key {
                var cursor = index + key.count
                func skipSpace() { while cursor < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 } }
                skipSpace()
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { break }
                cursor += 1
                skipSpace()
                guard cursor + 4 < bytes.count, bytes[cursor] == UInt8(ascii: "\""), bytes[cursor + 4] == UInt8(ascii: "\""),
                      bytes[(cursor + 1)...(cursor + 3)].allSatisfy({ (0x41...0x5A).contains($0) }) else { break }
                return String(decoding: bytes[(cursor + 1)...(cursor + 3)], as: UTF8.self)
            }
            index += 1
        }
        return string("currency", inJWS: jws)
    }
}
