import Foundation
import OfferSignerHTTP
import Testing
@testable import OfferSignerService

@Suite("Hostile input")
struct HostileInputTests {
    @Test("a user ID of one character with thousands of combining marks is refused")
    func combiningMarks() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let long = "a" + String(repeating: "\u{301}", count: 5000)
        #expect(long.count == 1)
        let response = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": long]))
        #expect(response.status == 400 && response.code == "invalid_request")
        #expect(InputRules.isUserId("é" + String(repeating: "x", count: 255)))
        #expect(!InputRules.isUserId(String(repeating: "x", count: 257)))
    }

    @Test("invented HTTP methods are counted as 'other' in the metrics, never as new series")
    func inventedMethods() throws {
        let env = try TestEnvironment()
        for index in 0..<50 { _ = env.send("X\(index)Y", "/v1/keys", role: nil) }
        let metrics = env.send("GET", "/metrics", role: nil).text
        #expect(!metrics.contains("X1Y"))
        #expect(metrics.contains(#"method="other",status="405"} 50"#))
    }

    @Test("CSV fields that a spreadsheet would run as formulas are defused")
    func csvFormulas() {
        #expect(CSV.row(["=HYPERLINK(\"x\")", "+1", "-2", "@a", "plain", "a,b"])
                == "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@a,plain,\"a,b\"\r\n")
    }
}
