import Foundation

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
