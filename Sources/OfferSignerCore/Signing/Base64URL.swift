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
}
