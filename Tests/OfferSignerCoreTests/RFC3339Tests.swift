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
