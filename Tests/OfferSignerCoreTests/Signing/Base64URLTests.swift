import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Base64url")
struct Base64URLTests {
    @Test("round-trips every length, uses - and _ and no padding")
    func roundTrip() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == Data(bytes))
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("-_8=") == Data([0xfb, 0xff]))
    }

    @Test("refuses characters outside the alphabet and impossible lengths")
    func refusals() {
        for bad in ["a+b", "a/b", "ab c", "abcde", "é", "ab\n"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }
}
