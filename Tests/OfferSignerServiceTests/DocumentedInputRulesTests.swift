import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerService
import Testing

/// The input rules that `openapi.yaml` states as patterns, checked against the code that
/// enforces them (Tests/contract/run-schemathesis.sh checks them against the running service).
@Suite("Input rules as openapi.yaml states them")
struct DocumentedInputRulesTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml")

    @Test("user IDs: 1–256 code points, refusing controls, format characters, separators, private use and noncharacters")
    func userIds() {
        for accepted in ["6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e", "Élodie Dupont", "用户", "🦊", "\u{0378}", "a b",
                         String(repeating: "🦊", count: 256)] {
            #expect(InputRules.isUserId(accepted), "\(accepted)")
        }
        // Noncharacters cannot be written in a Swift literal.
        let noncharacters = [0xFFFE, 0xFDD0, 0x1FFFF].map { String(Character(Unicode.Scalar(UInt32($0))!)) }
        for refused in ["", "a\u{2063}b", "a\u{200B}", "\u{7F}", "\u{85}", "\u{AD}", "\u{2028}", "\u{E000}", "\u{E0041}",
                        "\u{F0000}", "\u{10FFFD}", String(repeating: "x", count: 257)] + noncharacters {
            #expect(!InputRules.isUserId(refused), "\(refused.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("the UserId pattern of openapi.yaml refuses exactly the code points the service refuses")
    func userIdPatternMatchesCode() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let schema = try #require(text.range(of: "\n    UserId:\n"))
        let start = try #require(text.range(of: "pattern: \"^[^", range: schema.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "]{1,256}$\"", range: start.upperBound..<text.endIndex))
        // YAML folds a double-quoted line ending in `\`, with the next line's indentation.
        let body = text[start.upperBound..<end.lowerBound].replacing(/\\\n\s*/, with: "")
        var documented: [ClosedRange<UInt32>] = []
        for match in body.matches(of: /(\\\\x[0-9A-F]{2}|\\\\u[0-9A-F]{4}|\\U[0-9A-F]{8})(?:-(\\\\x[0-9A-F]{2}|\\\\u[0-9A-F]{4}|\\U[0-9A-F]{8}))?/) {
            // `\\x41`, `\\u0600` (regex escapes) or `\U000110BD` (a YAML escape): the digits after the letter.
            func value(_ token: Substring) -> UInt32 { UInt32(token.drop { $0 == "\\" }.dropFirst(), radix: 16) ?? .max }
            let low = value(match.1)
            documented.append(low...(match.2.map(value) ?? low))
        }
        #expect(!documented.isEmpty)
        let documentedSet = Self.codePoints(documented)
        let enforced = Set((UInt32(0)...0x10FFFF).filter { value in
            guard let scalar = Unicode.Scalar(value) else { return false }
            return !InputRules.isUserId(String(Character(scalar)))
        })
        func hex(_ values: Set<UInt32>) -> String { values.sorted().prefix(8).map { "U+" + String($0, radix: 16, uppercase: true) }.joined(separator: " ") }
        let documentedOnly = documentedSet.subtracting(enforced).subtracting(0xD800...0xDFFF)
        let enforcedOnly = enforced.subtracting(documentedSet)
        #expect(documentedOnly.isEmpty, "refused by openapi.yaml, accepted by the service: \(hex(documentedOnly)) …")
        #expect(enforcedOnly.isEmpty, "refused by the service, accepted by openapi.yaml: \(hex(enforcedOnly)) …")
    }

    @Test("cursors: exactly the 11-character strings of the Cursor pattern decode, back to the position they encode")
    func cursors() throws {
        for position: Int64 in [0, 1, 255, 1 << 40, .max] {
            let cursor = PageCursor.encode(position)
            #expect(cursor.wholeMatch(of: /[A-Za-f][A-Za-z0-9_\-]{9}[AEIMQUYcgkosw048]/) != nil, "\(cursor)")
            #expect(try PageCursor.decode(cursor) == position)
        }
        for refused in ["", "garbage", "AAAAAAAAAAB", "gAAAAAAAAAA", "AAAAAAAAAA=", "AAAAAAAAAAAA", "AAAAAAAAA+A"] {
            #expect(throws: (any Error).self, "\(refused)") { try PageCursor.decode(refused) }
        }
    }

    private static func codePoints(_ ranges: [ClosedRange<UInt32>]) -> Set<UInt32> {
        var set = Set<UInt32>()
        for range in ranges { set.formUnion(range) }
        return set
    }
}
