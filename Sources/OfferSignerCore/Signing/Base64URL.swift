import Foundation

/// Base64url without padding (RFC 4648 §5), as JWS uses it. Converted byte by byte: the
/// String-replacing route goes through NSString on Linux and dominated notification ingestion.
public enum Base64URL {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var base64 = Array(Data(bytes).base64EncodedData())
        while base64.last == UInt8(ascii: "=") { base64.removeLast() }
        for index in base64.indices {
            switch base64[index] {
            case UInt8(ascii: "+"): base64[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): base64[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: base64, as: UTF8.self)
    }

    /// Decodes base64url with or without padding; nil for any character outside the alphabet.
    public static func decode(_ text: some StringProtocol) -> Data? {
        decode(utf8: text.utf8)
    }

    /// Decodes base64url given as ASCII bytes.
    public static func decode<Bytes: Collection>(utf8 text: Bytes) -> Data? where Bytes.Element == UInt8 {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        // Standard base64 of the same length, padded to a multiple of four.
        var base64 = [UInt8](repeating: UInt8(ascii: "="), count: (count + 3) / 4 * 4)
        let ok = base64.withUnsafeMutableBufferPointer { out -> Bool in
            var index = 0
            for byte in text {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "="):
                    out[index] = byte
                case UInt8(ascii: "-"): out[index] = UInt8(ascii: "+")
                case UInt8(ascii: "_"): out[index] = UInt8(ascii: "/")
                default: return false
                }
                index += 1
            }
            return true
        }
        guard ok else { return nil }
        return Data(base64Encoded: Data(base64))
    }

    /// Whether `text` is base64url exactly as a JWS encoder writes it: no padding, and the
    /// bits of the last character beyond the encoded bytes zero. Decoding accepts other
    /// spellings of the same bytes; signed data is checked with this so that one item has one
    /// text (Apple's encoder writes nothing else).
    public static func isCanonical<Bytes: Collection>(utf8 text: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard !text.contains(UInt8(ascii: "=")) else { return false }
        let unusedBits: UInt8
        switch text.count % 4 {
        case 2: unusedBits = 0x0F
        case 3: unusedBits = 0x03
        default: return true
        }
        guard let last = text.reversed().first, let value = sextet(last) else { return false }
        return value & unusedBits == 0
    }

    /// The six bits a base64url character stands for; nil outside the alphabet.
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
