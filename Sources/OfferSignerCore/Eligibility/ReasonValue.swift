import Foundation

/// The value of a criterion in an ``EligibilityReason``, encoded as a plain JSON value:
/// a number, a boolean, a string, an array of strings, an array of numbers or `null`.
public enum ReasonValue: Codable, Hashable, Sendable {
    case int(Int)
    case bool(Bool)
    case string(String)
    case strings([String])
    case ints([Int])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String].self) {
            self = .strings(value)
        } else {
            self = .ints(try container.decode([Int].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .strings(let value): try container.encode(value)
        case .ints(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}
