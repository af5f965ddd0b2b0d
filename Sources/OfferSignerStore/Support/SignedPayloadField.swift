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
        let scanned = payload.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String? in
            let key: StaticString = #""currency""#
            let keyBytes = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
            var index = 0
            while index + keyBytes.count <= bytes.count {
                defer { index += 1 }
                guard bytes[index] == keyBytes[0], bytes[index..<(index + keyBytes.count)].elementsEqual(keyBytes) else { continue }
                var cursor = index + keyBytes.count
                while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { return nil }
                cursor += 1
                while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                guard cursor + 4 < bytes.count, bytes[cursor] == UInt8(ascii: "\""), bytes[cursor + 4] == UInt8(ascii: "\""),
                      bytes[(cursor + 1)...(cursor + 3)].allSatisfy({ (0x41...0x5A).contains($0) }) else { return nil }
                return (String(decoding: bytes[(cursor + 1)...(cursor + 3)], as: UTF8.self))
            }
            return nil
        }
        if let scanned { return scanned }
        return string("currency", inJWS: jws)
    }
}
