import Foundation

/// RFC 3339 timestamps in UTC.
public enum RFC3339 {
    /// `2026-11-30T05:45:33Z` (fractions of a second are dropped). Formatted with `gmtime_r`:
    /// it runs for every signature and log line, where Foundation's formatter is costly. A date
    /// outside 0000–9999 is written as the nearest end of that range.
    public static func string(from date: Date) -> String {
        withText(of: date) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the 20 bytes of ``string(from:)`` for `date`, written digit by digit
    /// into a buffer on the stack (issue 38: no string pieces made and appended per field).
    public static func withText<Result>(of date: Date, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let whole = date.timeIntervalSince1970.rounded(.down)
        var seconds = time_t(whole.isNaN ? 0 : min(max(whole, -62_167_219_200), 253_402_300_799))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // The clamp keeps the year within 0000–9999: four digits, as RFC 3339 writes years.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
            func digits(_ value: Int32, at start: Int, count: Int) {
                var rest = Int(value)
                for index in stride(from: start + count - 1, through: start, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            digits(parts.tm_year + 1900, at: 0, count: 4)
            text[4] = UInt8(ascii: "-")
            digits(parts.tm_mon + 1, at: 5, count: 2)
            text[7] = UInt8(ascii: "-")
            digits(parts.tm_mday, at: 8, count: 2)
            text[10] = UInt8(ascii: "T")
            digits(parts.tm_hour, at: 11, count: 2)
            text[13] = UInt8(ascii: ":")
            digits(parts.tm_min, at: 14, count: 2)
            text[16] = UInt8(ascii: ":")
            digits(parts.tm_sec, at: 17, count: 2)
            text[19] = UInt8(ascii: "Z")
            return body(UnsafeBufferPointer(text))
        }
    }

    /// The instants the interface accepts where it is given a time to keep (offer rules'
    /// `startsAt` and `endsAt`): 2000-01-01T00:00:00Z up to the end of 2100.
    public static let acceptedRange = Date(timeIntervalSince1970: 946_684_800)..<Date(timeIntervalSince1970: 4_133_980_800)

    /// Parses an RFC 3339 date-time (section 5.6), as JSON Schema's `date-time` format reads it:
    /// `2026-11-30T05:45:33Z`, optionally with a fraction of a second, with `Z` or an offset
    /// `±HH:MM` (hours 00–23), `T` and `Z` in either case, a second of 60 only at 23:59 UTC.
    /// Anything else, such as a day the month does not have, is nil.
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ index: Int, is characters: String) -> Bool { characters.utf8.contains(bytes[index]) }
        guard let year = number(0, 4), byte(4, is: "-"), let month = number(5, 2), byte(7, is: "-"), let day = number(8, 2),
              byte(10, is: "Tt"), let hour = number(11, 2), byte(13, is: ":"), let minute = number(14, 2), byte(16, is: ":"),
              let second = number(17, 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var index = 19
        var fraction = 0.0
        if byte(index, is: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, let digit = number(index, 1) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > 20, index < bytes.count else { return nil }
        }
        let offset: Int
        if byte(index, is: "Zz"), index + 1 == bytes.count {
            offset = 0
        } else if byte(index, is: "+-"), index + 6 == bytes.count, let hours = number(index + 1, 2), byte(index + 3, is: ":"),
                  let minutes = number(index + 4, 2), hours <= 23, minutes <= 59 {
            offset = (bytes[index] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        let local = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        let utc = local - offset
        // A leap second ends a UTC day: 23:59:60 in UTC, whatever the offset it is written in.
        if second == 60, ((utc - 1) % 86_400 + 86_400) % 86_400 != 86_399 { return nil }
        return Date(timeIntervalSince1970: Double(utc) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
