import Testing
@testable import OfferSignerHTTP

@Suite("A request's media type")
struct MediaTypeTests {
    func mediaType(_ value: String?) -> String? {
        HTTPRequest(method: "POST", path: "/", headers: value.map { ["Content-Type": $0] } ?? [:]).mediaType
    }

    @Test("parameters, optional whitespace (space and tab) and case are dropped; nothing else is")
    func trimming() {
        #expect(mediaType("application/json") == "application/json")
        #expect(mediaType(" \tApplication/JSON\t ; charset=utf-8") == "application/json")
        #expect(mediaType("application/x-ndjson;charset=utf-8") == "application/x-ndjson")
        // Only RFC 9110's whitespace is optional: a no-break space is part of the value, and refused.
        #expect(mediaType("\u{00A0}application/json") == "\u{00A0}application/json")
        #expect(mediaType("; charset=utf-8") == "")
        #expect(mediaType("   ") == "")
        #expect(mediaType("") == nil)
        #expect(mediaType(nil) == nil)
    }
}
