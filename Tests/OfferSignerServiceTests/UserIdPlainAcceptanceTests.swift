@testable import OfferSignerApplication
import Testing

/// `InputRules.userIdRefusal` answers a plain ASCII user ID in one pass over its bytes
/// (`isPlainlyAccepted`, issue 38); these hold that pass to the rules it skips.
@Suite("User IDs accepted in one pass agree with the full rules")
struct UserIdPlainAcceptanceTests {
    /// The rules as `userIdRefusal` states them, each pass in full.
    static func acceptedByEveryRule(_ text: String) -> Bool {
        InputRules.isUserId(text) && InputRules.isNFC(text)
            && !text.unicodeScalars.allSatisfy { scalar in InputRules.blankToTheEye.contains { $0.contains(scalar.value) } }
    }

    @Test("issue 38: random texts near the fast path's edges (controls, DEL, spaces only, 0, 256, 257 bytes, non-ASCII) get the full rules' answer")
    func randomTexts() {
        var random = HostileInputTests.SeededGenerator(state: 20_261_203)
        let pieces: [String] = ["a", "Z", "0", "-", " ", "~", "\u{7F}", "\u{1F}", "\u{0}", "\t", "\u{A0}", "é", "e\u{301}",
                                "\u{212A}", "\u{2063}", "\u{3164}", "用", "🦊", "\u{FEFF}"]
        var plain = 0
        let lengths = [0, 1, 2, -1, -1, 255, 256, 257]  // -1: any of 0–40
        for round in 0..<12_000 {
            let drawn = lengths[round % lengths.count]
            let length = drawn < 0 ? Int.random(in: 0...40, using: &random) : drawn
            // Mostly printable ASCII, sometimes one piece from the edges of the rules.
            var text = ""
            let spacesOnly = round % 11 == 0
            for _ in 0..<length {
                if spacesOnly { text += " "; continue }
                if Int.random(in: 0..<40, using: &random) == 0 {
                    text += pieces.randomElement(using: &random)!
                } else {
                    text += String(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &random)))
                }
            }
            let refusal = InputRules.userIdRefusal(text, field: "'userId'")
            #expect((refusal == nil) == Self.acceptedByEveryRule(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            if InputRules.isPlainlyAccepted(text) {
                plain += 1
                #expect(Self.acceptedByEveryRule(text))
            }
        }
        #expect(plain > 2_000, "the draw must exercise the fast path")
        for edge in ["", " ", String(repeating: " ", count: 256), "\u{7F}", "a\u{7F}", String(repeating: "x", count: 256),
                     String(repeating: "x", count: 257), " x ", "\u{1F}x"] {
            #expect(InputRules.isPlainlyAccepted(edge) == false || Self.acceptedByEveryRule(edge), "\(edge.debugDescription)")
            #expect((InputRules.userIdRefusal(edge, field: "f") == nil) == Self.acceptedByEveryRule(edge), "\(edge.debugDescription)")
        }
    }
}
