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

    @Test("Accept chooses CSV only when text/csv is acceptable (q above 0) and at least as wanted as JSON", arguments: [
        ("text/csv", true), ("text/csv; charset=utf-8", true), ("TEXT/CSV", true), ("text/csv, application/json", true),
        ("text/csv;q=0, application/json", false), ("text/csv;q=0", false), ("text/csv;q=0.000", false),
        ("text/csv;q=0.5, application/json", false), ("application/json;q=0.4, text/csv;q=0.5", true),
        ("text/*", true), ("text/*, application/*", true), ("*/*", false), ("application/json", false),
        ("text/csv;q=2", false), ("text/csv;q=abc, application/json", false), ("text/csv;q=1.", true), ("", false),
    ])
    func acceptPrefersCSV(accept: String, csv: Bool) {
        let request = HTTPRequest(method: "GET", path: "/x", headers: ["Accept": accept])
        #expect(request.prefers("text/csv", over: "application/json") == csv)
    }

    @Test("without Accept, JSON")
    func noAccept() {
        #expect(!HTTPRequest(method: "GET", path: "/x").prefers("text/csv", over: "application/json"))
    }

    @Test("issue 38: a Content-Type taken as accepted on its bytes is one the media type accepts, over 20,000 random values")
    func plainAcceptanceAgreesWithMediaType() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["application", "/", "json", "JSON", "x-ndjson", ";", " ", "\t", "charset=utf-8", "\u{00A0}", "é", "+", "text/csv"]
        let accepted: Set<String> = ["application/json", "application/x-ndjson", "text/csv", "application/json; charset=utf-8"]
        var plain = 0
        for _ in 0..<20_000 {
            let value = (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let request = HTTPRequest(method: "POST", path: "/", headers: ["Content-Type": value])
            if ContentTypeMiddleware<BasicRequestContext>.isPlainlyAccepted(request, accepted) {
                plain += 1
                #expect(request.mediaType.map(accepted.contains) == true, "\(value.debugDescription)")
            }
        }
        #expect(plain > 100)
        let json = HTTPRequest(method: "POST", path: "/", headers: ["Content-Type": "application/json"])
        #expect(ContentTypeMiddleware<BasicRequestContext>.isPlainlyAccepted(json, accepted))
        // Accepted only through the media type (the full way): never plainly.
        for value in ["Application/JSON", "application/json; charset=utf-8", " application/json"] {
            let request = HTTPRequest(method: "POST", path: "/", headers: ["Content-Type": value])
            #expect(!ContentTypeMiddleware<BasicRequestContext>.isPlainlyAccepted(request, accepted))
        }
    }
}
