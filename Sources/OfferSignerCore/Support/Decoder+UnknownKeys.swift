import Foundation

/// A coding key that accepts any string, to list every key a JSON object holds.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws `DecodingError.dataCorrupted` naming the first key that `Keys` does not know.
    public func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let unknownKeys = container.allKeys.filter { Keys(stringValue: $0.stringValue) == nil }
        if let unknown = unknownKeys.map(\.stringValue).sorted().first {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath + [AnyCodingKey(stringValue: unknown)],
                debugDescription: "unknown field '\(unknown)'"))
        }
    }
}
