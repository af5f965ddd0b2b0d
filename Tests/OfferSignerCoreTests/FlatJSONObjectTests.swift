import Foundation
import Testing
import OfferSignerCore

@Suite("Fast reader of flat JSON objects of strings")
struct FlatJSONObjectTests {
    func read(_ json: String) -> [String]? {
        FlatJSONObject.strings(Array(json.utf8))?.map { "\($0.name)=\($0.value)" }
    }

    @Test("a flat object of plain strings is read in order, whitespace allowed where JSON allows it")
    func reads() {
        #expect(read(#"{"productId":"p","offerId":"o","userId":"u-1"}"#) == ["productId=p", "offerId=o", "userId=u-1"])
        #expect(read(" \r\n\t{ \"a\" :\t\"x y\" , \"b\":\"\" }\n") == ["a=x y", "b="])
        #expect(read("{}") == [])
    }

    @Test("what every accepted body decodes to with JSONDecoder is the same")
    func agreesWithJSONDecoder() throws {
        for json in [#"{"productId":"p","offerId":"o","userId":"u-1"}"#, #" { "a" : "~!@#$%^&*()_+{}[]:;'<>,.?/" } "#] {
            let decoded = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
            let read = try #require(FlatJSONObject.strings(Array(json.utf8)))
            #expect(Dictionary(uniqueKeysWithValues: read.map { ($0.name, $0.value) }) == decoded)
        }
    }

    @Test("anything else is left to the strict decoder: escapes, non-strings, nesting, repeats, garbage, other encodings")
    func declines() {
        let declined = [
            "", " ", "[]", "\"x\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":\"x\",}", "{,}", "{\"a\":\"x\"} x", "{\"a\":\"x\"}{}",
            #"{"a":"x\"y"}"#, #"{"a":"\u0041"}"#, #"{"a\n":"x"}"#, "{\"a\":\"x\ty\"}", "{\"a\":\"caf\u{E9}\"}",
            #"{"a":1}"#, #"{"a":null}"#, #"{"a":true}"#, #"{"a":{}}"#, #"{"a":["x"]}"#,
            #"{"a":"x","a":"y"}"#, #"{'a':'x'}"#, #"{"a":"x" "b":"y"}"#, "\u{FEFF}{\"a\":\"x\"}",
        ]
        for json in declined {
            #expect(read(json) == nil, "\(json.debugDescription)")
        }
        #expect(FlatJSONObject.strings(Array(#"{"a":"x","b":"y","c":"z"}"#.utf8), maxMembers: 2) == nil)
        #expect(FlatJSONObject.strings([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]) == nil, "invalid UTF-8")
    }
}
