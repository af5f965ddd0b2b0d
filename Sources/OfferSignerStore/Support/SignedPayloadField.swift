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
    /// the member rather than parsing the whole JSON (a report reads it of every paid period):
    /// the JWS's bytes read in place, the payload decoded by a loop of this module, no
    /// allocation but the payload's. A payload the scan cannot read (escapes, another shape)
    /// is parsed whole.
    static func currency(inJWS jws: String) -> String? {
        var text = jws
        let scanned = text.withUTF8 { utf8 -> String? in
            guard let first = utf8.firstIndex(of: UInt8(ascii: ".")),
                  let second = utf8[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
                  let payload = decodeBase64URL(UnsafeBufferPointer(rebasing: utf8[(first + 1)..<second])) else { return nil }
            return payload.withUnsafeBufferPointer { scanCurrency($0) }
        }
        return scanned ?? string("currency", inJWS: jws)
    }

    /// Base64url (padding optional) decoded; nil for a character outside the alphabet.
    static func decodeBase64URL(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte &- UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte &- UInt8(ascii: "a") &+ 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0") &+ 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): return output
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    /// The three capital letters of the first `"currency"` member of a JSON payload when it is
    /// plainly written (`"currency": "EUR"`); nil otherwise.
    private static func scanCurrency(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let key: StaticString = #""currency""#
        let keyBytes = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
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
            return String(decoding: bytes[(cursor + 1)...(cursor + 3)], as: UTF8.self)
        }
        return nil
    }
}
