import Foundation

/// A JSON string, integer or null, encoded exactly; and objects of them with keys in the
/// order given (JSONEncoder neither keeps order nor is quick on hot paths).
public enum JSONScalar: Sendable {
    case string(String)
    case integer(Int64)
    case null

    /// The JSON text of the value.
    public var encoded: String {
        switch self {
        case .null:
            return "null"
        case .integer(let value):
            return String(value)
        case .string(let value):
            // Most values (IDs, base64, UUIDs) need no escaping: copy them whole.
            if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                return "\"" + value + "\""
            }
            var out = "\""
            out.reserveCapacity(value.utf8.count + 2)
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
    }

    /// A JSON object with `members` in order.
    public static func object(_ members: [(String, JSONScalar)]) -> String {
        var out = "{"
        for (index, member) in members.enumerated() {
            if index > 0 { out += "," }
            out += JSONScalar.string(member.0).encoded
            out += ":"
            out += member.1.encoded
        }
        return out + "}"
    }
}
