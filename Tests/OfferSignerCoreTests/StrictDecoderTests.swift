import Foundation
import Testing
import OfferSignerCore

@Suite("Strict JSON decoding")
struct StrictDecoderTests {
    struct Window: Codable, Equatable {
        var from: Date
        var to: Date?
    }

    struct Campaign: Codable, Equatable {
        var name: String
        var limits: [String: Int]?
        var windows: [Window]
        var owner: Owner?
    }

    struct Owner: Codable, Equatable {
        var team: String
    }

    func decode(_ json: String) throws -> Campaign {
        try JSONCoding.decoder.decodeStrictly(Campaign.self, from: Data(json.utf8))
    }

    func refusal(_ json: String) -> String {
        do {
            _ = try decode(json)
            return "accepted"
        } catch {
            return DecodingErrorText.describe(error)
        }
    }

    @Test("a synthesized type decodes as usual, the decoder's date strategy included")
    func decodes() throws {
        let campaign = try decode(#"{"name": "x", "limits": {"a": 1}, "windows": [{"from": "2026-11-30T00:00:00Z", "to": null}], "owner": null}"#)
        #expect(campaign == Campaign(name: "x", limits: ["a": 1], windows: [Window(from: Date(timeIntervalSince1970: 1_795_996_800), to: nil)], owner: nil))
    }

    @Test("an unknown key is refused at any depth, named with its path")
    func refusesUnknownKeys() {
        #expect(refusal(#"{"name": "x", "windows": [], "colour": "red"}"#) == "'colour': unknown field 'colour'")
        #expect(refusal(#"{"name": "x", "windows": [{"from": "2026-11-30T00:00:00Z", "until": 1}]}"#)
                == "'windows[0].until': unknown field 'until'")
        #expect(refusal(#"{"name": "x", "windows": [], "owner": {"team": "a", "lead": "b"}}"#) == "'owner.lead': unknown field 'lead'")
    }

    @Test("missing and mistyped fields keep their usual errors")
    func usualErrors() {
        #expect(refusal(#"{"windows": []}"#) == "'name' is required")
        #expect(refusal(#"{"name": 3, "windows": []}"#) == "'name' must be a string")
    }
}
