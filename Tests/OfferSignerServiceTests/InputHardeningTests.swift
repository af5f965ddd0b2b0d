import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// What the service refuses at its edge (issue 12): offer dates out of range, user IDs too long,
/// not in NFC or blank to the eye, CSV formulas behind a combining mark, duplicate JSON
/// keys, and request numbers that do not fit their field.
@Suite("Input refused at the edge")
struct InputHardeningTests {
    func putRule(_ env: TestEnvironment, _ json: String) -> TestResponse {
        env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: json)
    }

    func rule(startsAt: String) -> String {
        #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["com.example.app.pro_monthly"], "startsAt": "\#(startsAt)"}"#
    }

    @Test("offer dates: RFC 3339 from 2000 to 2100 only; the rest is refused with 400 naming the field", arguments: [
        "0001-01-01T00:00:00Z", "1999-12-31T23:59:59Z", "2101-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2100-12-31T23:00:00-05:00",
        "2026-02-30T00:00:00Z", "12026-01-01T00:00:00Z", "+2026-01-01T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01",
    ])
    func offerDatesRefused(_ date: String) throws {
        let env = try TestEnvironment()
        let response = putRule(env, rule(startsAt: date))
        #expect(response.status == 400 && response.code == "invalid_request")
        #expect((response.json["detail"] as? String)?.hasPrefix("'startsAt': '\(date)' is not") == true, "\(response.text)")
        #expect(try env.offers.offer(bundleId: TestEnvironment.bundleId, offerId: "winback") == nil, "nothing stored")
    }

    @Test("offer dates at the ends of the range are kept and read back as sent", arguments: [
        "2000-01-01T00:00:00Z", "2100-12-31T23:59:59Z", "2026-02-28T23:59:59Z", "2028-02-29T12:00:00Z",
    ])
    func offerDatesKept(_ date: String) throws {
        let env = try TestEnvironment()
        let response = putRule(env, rule(startsAt: date))
        #expect(response.status == 201, "\(response.text)")
        #expect(env.send("GET", "/v1/admin/offers/winback", role: .marketing).json["startsAt"] as? String == date)
    }

    @Test("only A–Z are case-folded in user IDs: 256 × İ is accepted and kept as sent (one code point each); 257 code points are refused")
    func userIdFoldsOnlyASCII() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let dotted = String(repeating: "İ", count: 256)
        let accepted = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": dotted]))
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(accepted.json["appAccountToken"] as? String == dotted)
        let stored = try env.signatures.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10)
        #expect(stored.map { Array($0.record.userId.unicodeScalars) } == [Array(dotted.unicodeScalars)], "İ is not made i + U+0307")
        let long = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": dotted + "A"]))
        #expect(long.status == 400 && (long.json["detail"] as? String)?.contains("'userId'") == true, "\(long.text)")
        #expect(InputRules.normalizedUserId("ABC-Straße-ÄÖ") == "abc-straße-ÄÖ")
    }

    @Test("a user ID not in NFC is refused (not normalised) wherever it enters: the Kelvin sign, a letter with a combining accent",
          arguments: ["\u{212A}elvin", "e\u{301}lodie", "A\u{30A}ngstr\u{F6}m", "\u{2126}mega"])
    func userIdNotNFC(_ userId: String) throws {
        #expect(InputRules.normalizedUserId(userId) == nil)
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let sign = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": userId]))
        #expect(sign.status == 400 && (sign.json["detail"] as? String)?.contains("Normalization Form C") == true, "\(sign.text)")
        let offers = env.send("GET", "/v1/users/\(userId)/offers")
        #expect(offers.status == 400 && offers.text.contains("NFC"), "\(offers.text)")
        #expect(try env.signatures.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).isEmpty)
        // Its composed form is a user ID, distinct from the ASCII letters it resembles.
        let composed = userId.precomposedStringWithCanonicalMapping
        #expect(InputRules.normalizedUserId(composed) != nil)
        #expect(InputRules.normalizedUserId("\u{212A}") == nil && InputRules.normalizedUserId("K") == "k")
    }

    @Test("the NFC check's ASCII fast path (issue 38) answers as Foundation's normalisation does",
          arguments: ["bench-user-00000001", "a", "~!@#$%^&*()_+{}|:<>?`-=[]\\;',./ \"", "e\u{301}", "E\u{301}x", "\u{212A}",
                      "caf\u{E9}", "cafe\u{301}", "A\u{30A}", "x\u{0338}", "ab\u{1100}\u{1161}"])
    func nfcFastPath(_ text: String) {
        let foundation = Array(text.unicodeScalars) == Array(text.precomposedStringWithCanonicalMapping.unicodeScalars)
        #expect(InputRules.isNFC(text) == foundation, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("user IDs blank to the eye are refused; visible ones with such characters inside are not", arguments: [
        " ", "   ", "\u{3164}", "\u{3164}\u{3164}", "\u{115F}", "\u{1160}", "\u{FFA0}", "\u{2800}", "\u{3000}", "\u{00A0}",
        "\u{2002}\u{2003}", "\u{034F}", "\u{FE0F}", "\u{180B}", "\u{17B4}", " \u{3164} ", "\u{E0100}",
    ])
    func blankUserIds(_ userId: String) throws {
        #expect(InputRules.normalizedUserId(userId) == nil)
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let sign = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": userId]))
        #expect(sign.status == 400 && (sign.json["detail"] as? String)?.contains("blank") == true, "\(sign.text)")
    }

    @Test("user IDs with spaces or fillers among visible characters are accepted, A–Z folded")
    func visibleUserIds() {
        #expect(InputRules.normalizedUserId("Élodie Dupont") == "Élodie dupont")
        #expect(InputRules.normalizedUserId("a\u{3164}b") == "a\u{3164}b")
        #expect(InputRules.normalizedUserId("\u{301}") == "\u{301}", "a lone accent is visible")
        #expect(InputRules.normalizedUserId("ABC-123") == "abc-123")
    }

    @Test("the CSV guard looks at the first code point: '=' followed by a combining mark is defused")
    func csvCombiningMark() {
        #expect(CSV.row(["=\u{301}cmd|' /C calc'!A0"]) == "'=\u{301}cmd|' /C calc'!A0\r\n")
        #expect(CSV.row(["+\u{20DD}1", "-\u{0338}2", "@\u{301}x", "\t\u{301}x"]).hasPrefix("'+\u{20DD}1,'-\u{0338}2,'@\u{301}x,'\t"))
        #expect(CSV.row(["é=1"]) == "é=1\r\n")
        // Separators and quotes behind a combining mark still quote the field.
        #expect(CSV.row([",\u{301}x", "\"\u{301}", "a\r\nb"]) == "\",\u{301}x\",\"\"\"\u{301}\",\"a\r\nb\"\r\n")
    }

    @Test("a JSON body with a key twice is refused with 400 naming the key, at any depth, however the key is escaped", arguments: [
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "a", "userId": "b"}"#, "'userId'"),
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "a", "user\u0049d": "b"}"#, "'userId'"),
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "offerId": "winback", "userId": "a"}"#, "'offerId'"),
    ])
    func duplicateKeysInSign(_ body: String, _ named: String) throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let response = env.send("POST", "/v1/offers/sign", json: body)
        #expect(response.status == 400 && response.code == "invalid_request")
        #expect(response.json["detail"] as? String == "\(named): the key appears twice in its object", "\(response.text)")
        #expect(try env.signatures.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).isEmpty)
    }

    @Test("duplicate keys are refused in offer rules (nested too) and notifications; distinct keys in separate objects are fine")
    func duplicateKeysElsewhere() throws {
        let env = try TestEnvironment()
        let nested = #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["com.example.app.pro_monthly"], "eligibility": {"minPaidDays": 1, "minPaidDays": 0}}"#
        let refused = putRule(env, nested)
        #expect(refused.status == 400 && refused.json["detail"] as? String == "'eligibility.minPaidDays': the key appears twice in its object")
        #expect(try env.offers.offer(bundleId: TestEnvironment.bundleId, offerId: "winback") == nil)
        let notification = env.send("POST", "/v1/notifications/appstore", role: nil, json: #"{"signedPayload": "a.b.c", "signedPayload": "d.e.f"}"#)
        #expect(notification.status == 400 && (notification.json["detail"] as? String)?.contains("appears twice") == true)
        let distinct = #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["com.example.app.pro_monthly"], "eligibility": {"minPaidDays": 1}, "limits": {"maxSignaturesPerUserPerDay": 1}}"#
        #expect(putRule(env, distinct).status == 201)
    }

    @Test("an import line with a key twice is rejected, naming the key")
    func duplicateKeysInImport() throws {
        let env = try TestEnvironment()
        let t1 = TestAppStore.transaction(id: "d1", user: "dup", purchased: env.now - 40 * 86_400, expires: env.now - 10 * 86_400, signed: env.now - 86_400)
        let file = env.folder.appendingPathComponent("dup.ndjson")
        try #"{"signedTransactionInfo": "\#(t1)", "signedTransactionInfo": "x.y.z"}"#.write(to: file, atomically: true, encoding: .utf8)
        let response = TestResponse(response: env.router.respond(to: .init(
            method: "POST", path: "/v1/admin/history/import",
            headers: ["Authorization": "Bearer admin-token", "Content-Type": "application/x-ndjson"], bodyFile: file)))
        #expect(response.status == 200)
        #expect(response.json["accepted"] as? Int == 0 && response.json["rejectedCount"] as? Int == 1)
        let reason = (response.json["rejected"] as? [[String: Any]])?.first?["reason"] as? String
        #expect(reason == "the key 'signedTransactionInfo' appears twice", "\(response.text)")
    }

    @Test("numbers in request bodies that do not fit their field are refused naming the field", arguments: [
        (#""priority": 9223372036854775808"#, "'priority'"),
        (#""priority": 1.5"#, "'priority'"),
        (#""eligibility": {"minPaidDays": 1e300}"#, "'eligibility.minPaidDays'"),
        (#""eligibility": {"expirationIntents": [1, 99999999999999999999]}"#, "'eligibility.expirationIntents[1]'"),
        (#""limits": {"maxSignaturesPerUserPerDay": -9223372036854775809}"#, "'limits.maxSignaturesPerUserPerDay'"),
    ])
    func requestNumbers(_ member: String, _ named: String) throws {
        let env = try TestEnvironment()
        let body = #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["com.example.app.pro_monthly"], \#(member)}"#
        let response = putRule(env, body)
        #expect(response.status == 400 && (response.json["detail"] as? String)?.hasPrefix(named + ":") == true, "\(response.text)")
        let verify = env.send("POST", "/v1/audit/verify", role: .auditor, json: #"{"bundleId": "b", "keyIdentifier": "k", "productId": "p", "offerId": "o", "appAccountToken": "a", "nonce": "n", "timestamp": 1e30, "signature": "AA=="}"#)
        #expect(verify.status == 400 && (verify.json["detail"] as? String)?.hasPrefix("'timestamp':") == true, "\(verify.text)")
    }
}
