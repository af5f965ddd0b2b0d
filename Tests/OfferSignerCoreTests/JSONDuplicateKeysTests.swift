import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Duplicate JSON keys")
struct JSONDuplicateKeysTests {
    func path(_ json: String) -> String? {
        JSONDuplicateKeys.first(in: Array(json.utf8))?.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
    }

    @Test("a key twice in one object is found, with the path to it")
    func found() {
        #expect(path(#"{"a": 1, "a": 2}"#) == ".a")
        #expect(path(#"{"a": {"b": [1, {"c": 1, "d": {}, "c": 2}]}}"#) == ".a.b[1].c")
        #expect(path(#"[{"x": 1}, {"x": 1, "y": 2, "x": 3}]"#) == "[1].x")
        #expect(path(#"{"a\u0062": 1, "ab": 2}"#) == ".ab", "escapes are decoded before comparing")
        #expect(path(#"{"\ud83e\udd8a": 1, "🦊": 2}"#) == ".🦊", "surrogate pairs too")
        #expect(path(#"{"q\"": 1, "q\u0022": 2}"#) == ".q\"")
        #expect(path("{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}") == ".cafe\u{301}", "canonically equal keys, as Swift decoders see them")
    }

    @Test("distinct keys, keys repeated in other objects, and keys written as values are not duplicates")
    func notFound() {
        #expect(path(#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#) == nil)
        #expect(path(#"{"a": "a", "b": ["a", "a"], "c": {"d": "a"}}"#) == nil)
        #expect(path(#"{"a\\": 1, "a": 2, "a\"": 3}"#) == nil)
        #expect(path(#"{"ok": "{\"a\":1,\"a\":2}"}"#) == nil, "JSON inside a string is a string")
        #expect(path(#"[1, 2, 1]"#) == nil)
    }

    @Test("truncated or garbled input ends the scan without a finding and without trapping")
    func garbage() {
        for text in ["", "{", "{\"a", "{\"a\\", "{\"a\\u12", "}}]]", "{\"a\":1,\"a", "\"\\ud800\"", "{\"\\ud800\\u0041\": 1, \"\\ufffd\\u0041\": 2}"] {
            _ = path(text)
        }
        #expect(path("{\"\\ud800\\u0041\": 1, \"\\ufffdA\": 2}") == ".\u{FFFD}A", "a lone surrogate reads as U+FFFD")
    }

    @Test("strict decoding refuses a duplicate key, naming it")
    func strict() throws {
        struct Window: Decodable { var from: Int; var to: Int? }
        #expect(throws: DecodingError.self) { try JSONDecoder().decodeStrictly(Window.self, from: Data(#"{"from": 1, "from": 2}"#.utf8)) }
        let refusal = #expect(throws: DecodingError.self) {
            try JSONDecoder().decodeStrictly(Window.self, from: Data(#"{"to": 1, "from": 2, "to": 3}"#.utf8))
        }
        #expect(refusal.map { DecodingErrorText.describe($0) } == "'to': the key appears twice in its object")
    }
}
