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
