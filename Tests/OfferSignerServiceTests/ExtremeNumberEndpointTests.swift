import Foundation
@testable import OfferSignerCore
@testable import OfferSignerApplication
import OfferSignerHTTP
@testable import OfferSignerService
import Testing

/// Extreme numbers in App Store data sent to the service itself, through the notification
/// endpoint and the history import: refused with 400 naming the field and nothing stored, or
/// stored and served; never a crash (a date near the 64-bit maximum used to take the process
/// down on the database writer thread).
@Suite("Extreme numbers in App Store data")
struct ExtremeNumberEndpointTests {
    static let day: TimeInterval = 86_400

    /// A signed transaction with the JSON number `number` written as `field`.
    static func transaction(_ env: TestEnvironment, id: String, user: String, field: String, number: String) -> String {
        let payload = TestAppStore.payload(of: TestAppStore.transaction(
            id: id, user: user, purchased: env.now - 40 * day, expires: env.now - 10 * day, signed: env.now - day))
        var withMarker = payload
        withMarker[field] = "#NUMBER#"
        return TestAppStore.sign(payloadJSON: TestAppStore.json(withMarker).replacingOccurrences(of: "\"#NUMBER#\"", with: number))
    }

    static let fields = ["purchaseDate", "originalPurchaseDate", "expiresDate", "signedDate", "revocationDate", "quantity",
                         "price", "revocationReason", "offerType", "revocationPercentage"]
    static let extremes = ["9223372036854775807", "9223372036854775000", "-9223372036854775808", "9223372036854775808",
                           "-1", "0", "253402300800000", "1e300", "1.5", "2147483648", "123456789012345678901234567890"]

    @Test("a notification whose nested expiresDate is near the 64-bit maximum: 400 naming the field, nothing stored, service still up")
    func nestedExpiresDate() throws {
        let env = try TestEnvironment()
        let jws = Self.transaction(env, id: "x1", user: "extreme", field: "expiresDate", number: "9223372036854775000")
        let refused = env.send("POST", "/v1/notifications/appstore", role: nil,
                               json: TestAppStore.json(["signedPayload": TestAppStore.notification(transaction: jws, signed: env.now - Self.day)]))
        #expect(refused.status == 400 && refused.code == "invalid_signed_data")
        #expect(refused.json["detail"] as? String == "signedTransactionInfo: payload field 'expiresDate' is 9223372036854775000, not a time from 1970 to 9999 in milliseconds since 1970")
        let history = env.send("GET", "/v1/users/extreme/history", role: .marketing)
        #expect(history.status == 200)
        #expect((history.json["transactions"] as? [Any])?.isEmpty == true, "nothing was stored")
        // The service still stores good data.
        let good = TestAppStore.transaction(id: "x2", user: "extreme", purchased: env.now - 40 * Self.day,
                                            expires: env.now - 10 * Self.day, signed: env.now - Self.day)
        let stored = env.send("POST", "/v1/notifications/appstore", role: nil,
                              json: TestAppStore.json(["signedPayload": TestAppStore.notification(transaction: good, signed: env.now - Self.day)]))
        #expect(stored.status == 200, "\(stored.text)")
        #expect((env.send("GET", "/v1/users/extreme/history", role: .marketing).json["transactions"] as? [Any])?.count == 1)
    }

    @Test("every numeric field of a transaction with extreme values, by notification and by import: 200, or 400 naming the field")
    func everyField() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(eligibility: .init(requireLapsed: true, minPaidDays: 1, waitBetweenOffersDays: 5)))
        var lines: [String] = []
        var refusedFields: [String] = []
        for (fieldIndex, field) in Self.fields.enumerated() {
            for (numberIndex, number) in Self.extremes.enumerated() {
                let jws = Self.transaction(env, id: "t\(fieldIndex)-\(numberIndex)", user: "fuzz", field: field, number: number)
                let response = env.send("POST", "/v1/notifications/appstore", role: nil,
                                        json: TestAppStore.json(["signedPayload": TestAppStore.notification(transaction: jws, signed: env.now - Self.day)]))
                #expect(response.status == 200 || response.status == 400, "\(field) = \(number): \(response.text)")
                if response.status == 400 {
                    let detail = response.json["detail"] as? String ?? ""
                    #expect(detail.contains(field), "\(field) = \(number): \(detail)")
                    refusedFields.append(field)
                }
                lines.append(TestAppStore.json(["signedTransactionInfo": Self.transaction(env, id: "i\(fieldIndex)-\(numberIndex)",
                                                                                          user: "fuzz", field: field, number: number)]))
            }
        }
        #expect(Set(refusedFields) == Set(Self.fields), "each field has values that are refused")

        let file = env.folder.appendingPathComponent("extreme.ndjson")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let imported = TestResponse(response: env.router.respond(to: HTTPRequest(
            method: "POST", path: "/v1/admin/history/import",
            headers: ["Authorization": "Bearer admin-token", "Content-Type": "application/x-ndjson"], bodyFile: file)))
        #expect(imported.status == 200, "\(imported.text)")
        let rejected = imported.json["rejected"] as? [[String: Any]] ?? []
        #expect(rejected.count == refusedFields.count, "the import refuses what the notification endpoint refuses")
        for entry in rejected {
            let line = (entry["line"] as? Int ?? 1) - 1
            let field = Self.fields[line / Self.extremes.count]
            #expect((entry["reason"] as? String)?.contains(field) == true, "\(entry)")
        }

        // What was stored is served, and decisions are made on it.
        #expect(env.send("GET", "/v1/users/fuzz/history", role: .marketing).status == 200)
        #expect(env.send("GET", "/v1/users/fuzz/offers").status == 200)
        let sign = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": "fuzz"]))
        #expect(sign.status == 200 || sign.status == 403, "\(sign.text)")
    }
}
