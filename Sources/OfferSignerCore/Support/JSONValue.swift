import Foundation

/// A plain JSON value: the one representation of loosely typed JSON in the service (the
/// values of eligibility reasons, log fields, hand-written hot-path documents). Codable, and
/// written exactly and quickly by ``encoded`` and ``object(_:)`` where JSONEncoder is too slow
/// or does not keep member order.
public enum JSONValue: Codable, Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// A JSON object; written with its keys sorted.
    case dictionary([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }

    /// An array of strings.
    public static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
    /// An array of integers.
    public static func ints(_ values: [Int]) -> JSONValue { .array(values.map(JSONValue.int)) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let values = try? container.decode([JSONValue].self) {
            self = .array(values)
        } else {
            self = .dictionary(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .dictionary(let members): try container.encode(members)
        }
    }

    /// The JSON text of the value.
    public var encoded: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the JSON text of the value to `out` (one buffer for a whole document).
    func write(to out: inout String) {
        switch self {
        case .null:
            out += "null"
        case .bool(let value):
            out += value ? "true" : "false"
        case .int(let value):
            out += String(value)
        case .double(let value):
            out += value.isFinite ? "\(value)" : "null"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .dictionary(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.write(string: key, to: &out)
                out += ":"
                members[key]?.write(to: &out)
            }
            out += "}"
        case .string(let value):
            Self.write(string: value, to: &out)
        }
    }

    /// Appends `value` as a JSON string to `out` (for documents written directly on a hot path).
    public static func write(string value: String, to out: inout String) {
        out += "\""
        // Most values (IDs, base64, UUIDs) need no escaping: copy them whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += value
        } else {
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
        }
        out += "\""
    }

    /// A JSON object with `members` in order, each value a JSON text already written (by
    /// ``encoded``, ``object(_:)`` or this), for documents that nest objects.
    public static func object(encoded members: [(String, String)]) -> String {
        var out = "{"
        out.reserveCapacity(members.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        for (index, member) in members.enumerated() {
            if index > 0 { out += "," }
            write(string: member.0, to: &out)
            out += ":"
            out += member.1
        }
        out += "}"
        return out
    }

    /// A JSON array of `elements`, each a JSON text already written.
    public static func array(encoded elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }

    /// A JSON object with `members` in order.
    public static func object(_ members: [(String, JSONValue)]) -> String {
        var out = "{"
        out.reserveCapacity(members.count * 48)
        for (index, member) in members.enumerated() {
            if index > 0 { out += "," }
            write(string: member.0, to: &out)
            out += ":"
            member.1.write(to: &out)
        }
        out += "}"
        return out
    }
}
