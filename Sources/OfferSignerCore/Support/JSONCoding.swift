import Foundation

/// The JSON conventions of the public interface: RFC 3339 UTC dates in whole seconds (fractions
/// are accepted and dropped; only dates in ``RFC3339/acceptedRange``, 2000–2100, are read),
/// sorted keys.
public enum JSONCoding {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return encoder
    }()

    public static let decoder = decoder(userInfo: [:])

    /// A decoder of these conventions that hands `userInfo` to the types it decodes.
    public static func decoder(userInfo: [CodingUserInfoKey: any Sendable]) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an RFC 3339 time such as 2026-11-30T05:45:33Z")
            }
            guard RFC3339.acceptedRange.contains(date) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not between 2000-01-01T00:00:00Z and 2100-12-31T23:59:59Z")
            }
            // Whole seconds, as every time of the interface is written: a rule read back and
            // sent again is then the same rule.
            return Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        }
        return decoder
    }
}
