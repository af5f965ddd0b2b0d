import Foundation

/// An HTTP response value.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response; keys sorted so output is stable.
    public static func json<Body: Encodable>(_ value: Body, status: Int = 200, headers: HTTPHeaders = [:]) throws -> HTTPResponse {
        var headers = headers
        headers.set("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: Array(try JSONCoding.encoder.encode(value)))
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }
}

/// The JSON conventions of the public interface: RFC 3339 UTC dates in whole seconds (fractions
/// are accepted and dropped), sorted keys.
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

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an RFC 3339 time such as 2026-11-30T05:45:33Z")
            }
            // Whole seconds, as every time of the interface is written: a rule read back and
            // sent again is then the same rule.
            return Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        }
        return decoder
    }()
}

/// RFC 3339 timestamps in UTC.
public enum RFC3339 {
    /// `2026-11-30T05:45:33Z` (fractions of a second are dropped). Formatted with `gmtime_r`:
    /// it runs for every signature and log line, where Foundation's formatter is costly.
    public static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let year = String(parts.tm_year + 1900)
        return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Parses RFC 3339 with or without fractional seconds, with `Z` or a numeric offset.
    public static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text)
    }
}
