import Foundation
import OfferSignerCore
import Testing

/// Free text typed by people, and message text shown to customers (issue 33 §6): controls,
/// bidirectional overrides and zero-width characters are refused where they enter.
@Suite("Free text without hidden characters")
struct FreeTextTests {
    @Test("a consent clearing's reason with a control, bidirectional-override or zero-width character is refused 400",
          arguments: ["ok\u{202E}gnp.exe", "ticket\u{200B}4411", "ticket\u{2066}4411\u{2069}", "a\u{0007}b", "x\u{FEFF}", "a\u{200F}b",
                      "a\u{061C}b", "a\u{2060}b"])
    func consentReason(_ reason: String) throws {
        let env = try TestEnvironment()
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["reason": reason]), as: UTF8.self)
        let refused = env.send("POST", "/v1/admin/consents/999/clear", role: .admin, json: json)
        #expect(refused.status == 400 && refused.code == "invalid_request", "\(refused.text)")
        #expect(refused.text.contains("bidirectional-override or zero-width"))
        // The same request with a plain reason passes the check (and finds nothing to clear).
        #expect(env.send("POST", "/v1/admin/consents/999/clear", role: .admin, json: #"{"reason": "ticket 4411 ✓ — café"}"#).status == 404)
    }

    @Test("the rule names the first refused code point; letters, emoji and accents pass")
    func rule() {
        #expect(FreeText.refusedCharacter(in: "ok\u{202E}x").map(FreeText.name) == "U+202E")
        #expect(FreeText.refusedCharacter(in: "a\u{9}b").map(FreeText.name) == "U+0009")
        #expect(FreeText.refusedCharacter(in: "Élodie, İstanbul, 東京, 👍🏽, e\u{301}") == nil)
    }
}
