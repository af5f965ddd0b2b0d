import Foundation
import OfferSignerCore
import OfferSignerHTTP

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
