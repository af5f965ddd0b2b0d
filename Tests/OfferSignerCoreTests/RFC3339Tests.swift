import Foundation
import Testing
import OfferSignerCore

@Suite("RFC 3339 times")
struct RFC3339Tests {
    @Test("formatting matches Foundation's ISO 8601 style, fractions dropped; parsing takes offsets and fractions")
    func roundTrip() {
        for seconds in [0.0, 1_796_020_928.797, 951_782_400, 4_102_444_799.999, -1] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.string(from: date) == Date(timeIntervalSince1970: seconds.rounded(.down)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt)))
        }
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_796_020_928)) == "2026-11-30T06:42:08Z")
        #expect(RFC3339.date(from: "2026-11-30T07:42:08+01:00") == Date(timeIntervalSince1970: 1_796_020_928))
        #expect(RFC3339.date(from: "2026-11-30T06:42:08.500Z") == Date(timeIntervalSince1970: 1_796_020_928.5))
        #expect(RFC3339.date(from: "yesterday") == nil)
    }
}

extension RFC3339Tests {
    @Test("parsing takes exactly RFC 3339 date-times: every offset up to ±23:59, either case of T and Z, leap seconds only at 23:59:60 UTC; years are written in four digits")
    func strictParsing() {
        let midnight = Date(timeIntervalSince1970: 946_684_800) // 2000-01-01T00:00:00Z
        #expect(RFC3339.date(from: "2000-01-01T00:00:00Z") == midnight)
        #expect(RFC3339.date(from: "2000-01-01t00:00:00z") == midnight)
        #expect(RFC3339.date(from: "2000-01-01T20:44:00+20:44") == midnight)
        #expect(RFC3339.date(from: "1999-12-31T00:01:00-23:59") == midnight)
        #expect(RFC3339.date(from: "1999-12-31T23:59:60Z") == midnight)
        #expect(RFC3339.date(from: "2000-01-01T00:59:60+01:00") == midnight)
        #expect(RFC3339.date(from: "2000-02-29T00:00:00Z") == Date(timeIntervalSince1970: 951_782_400))
        #expect(RFC3339.date(from: "1969-12-31T23:59:59.25Z") == Date(timeIntervalSince1970: -0.75))
        #expect(RFC3339.date(from: "0001-01-01T00:00:00Z") == Date(timeIntervalSince1970: -62_135_596_800))
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        #expect(RFC3339.string(from: RFC3339.date(from: "0202-03-14T20:57:51Z")!) == "0202-03-14T20:57:51Z")
        for text in ["2000-02-30T00:00:00Z", "1900-02-29T00:00:00Z", "2000-04-31T00:00:00Z", "2000-13-01T00:00:00Z",
                     "2000-01-01T24:00:00Z", "2024-01-01T12:99:00Z", "2000-01-01T00:00:60Z", "2000-01-01T00:00:00+24:00",
                     "2000-01-01T00:00:00+0100", "2000-01-01T00:00:00+01", "2000-01-01T00:00:00.Z", "2000-01-01 00:00:00Z",
                     "2000-01-01T00:00:00", "2000-01-01T00:00:00Zx", "+2000-01-01T00:00:00Z", "２000-01-01T00:00:00Z", ""] {
            #expect(RFC3339.date(from: text) == nil, "\(text)")
        }
    }
}

@Suite("RFC 3339 text written digit by digit (issue 38)")
struct RFC3339TextTests {
    /// The text as it was made before issue 38's change: pieces formatted and interpolated.
    static func reference(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down)
        var seconds = time_t(whole.isNaN ? 0 : min(max(whole, -62_167_219_200), 253_402_300_799))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let fullYear = Int(parts.tm_year) + 1900
        let year = (0..<1000).contains(fullYear) ? String(String(fullYear + 10_000).dropFirst()) : String(fullYear)
        return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    @Test("the same text as the interpolated formatting, for 50,000 random instants and the range's ends")
    func sameText() {
        var generator = SystemRandomNumberGenerator()
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: 0.999),
                     Date(timeIntervalSince1970: -62_167_219_200), Date(timeIntervalSince1970: -62_167_219_201),
                     Date(timeIntervalSince1970: 253_402_300_799.5), Date(timeIntervalSince1970: 1e300),
                     Date(timeIntervalSince1970: -1e300), Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity),
                     Date(timeIntervalSince1970: -31_536_000_000), Date(timeIntervalSince1970: 1_764_481_533)]
        for _ in 0..<50_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: -63_000_000_000...254_000_000_000, using: &generator)))
        }
        for date in dates {
            let expected = Self.reference(date)
            #expect(RFC3339.string(from: date) == expected, "\(date.timeIntervalSince1970)")
            var json = JSONBytes(capacity: 24)
            json.string(rfc3339: date)
            #expect(json.bytes == Array("\"\(expected)\"".utf8))
        }
    }
}
