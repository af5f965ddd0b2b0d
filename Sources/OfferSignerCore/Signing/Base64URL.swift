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
        var base64: [UInt8] = []
        base64.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "="):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += Array("==".utf8)
        case 3: base64.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(base64))
    }
}
