import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerService
import Testing

@Suite("Offer rules through the admin API")
struct OfferAdminTests {
    static let rule = """
        {"offerId": "winback_50_3m", "bundleId": "com.example.app",
         "productIds": ["com.example.app.pro_monthly", "com.example.app.pro_yearly"], "enabled": true, "priority": 10,
         "startsAt": "2026-12-01T00:00:00Z", "endsAt": null,
         "eligibility": {"requireLapsed": true, "minPaidDays": 180, "minDaysSinceExpiry": 60, "maxDaysSinceExpiry": 730,
                         "waitBetweenOffersDays": 60, "maxRedemptionsPerUser": 1, "excludeRefunded": true, "storefronts": ["USA", "CAN"]},
         "limits": {"maxSignaturesPerUserPerDay": 5}}
        """

    @Test("the contract's example rule is stored and returned with createdAt, updatedAt and version")
    func putAndGet() throws {
        let env = try TestEnvironment()
        let created = env.send("PUT", "/v1/admin/offers/winback_50_3m", role: .marketing, json: Self.rule)
        #expect(created.status == 201)
        let fetched = env.send("GET", "/v1/admin/offers/winback_50_3m", role: .marketing).json
        #expect(fetched["version"] as? Int == 1)
        #expect(fetched["createdAt"] as? String == "2027-01-15T08:00:00Z")
        #expect(fetched["startsAt"] as? String == "2026-12-01T00:00:00Z")
        let eligibility = fetched["eligibility"] as? [String: Any] ?? [:]
        #expect(eligibility["minPaidDays"] as? Int == 180 && eligibility["storefronts"] as? [String] == ["USA", "CAN"])
        #expect((fetched["limits"] as? [String: Any])?["maxSignaturesPerUserPerDay"] as? Int == 5)
        let updated = env.send("PUT", "/v1/admin/offers/winback_50_3m", role: .admin,
                               json: Self.rule.replacingOccurrences(of: "\"priority\": 10", with: "\"priority\": 3"))
        #expect(updated.status == 200 && updated.json["version"] as? Int == 2 && updated.json["priority"] as? Int == 3)
        let list = env.send("GET", "/v1/admin/offers", role: .marketing).json["offers"] as? [[String: Any]] ?? []
        #expect(list.count == 1)
    }

    @Test("sending the same rule again changes nothing, also with fractions of a second")
    func idempotentPut() throws {
        let env = try TestEnvironment()
        let body = Self.rule.replacingOccurrences(of: "2026-12-01T00:00:00Z", with: "2026-12-01T00:00:00.500Z")
        #expect(env.send("PUT", "/v1/admin/offers/winback_50_3m", role: .marketing, json: body).status == 201)
        let again = env.send("PUT", "/v1/admin/offers/winback_50_3m", role: .marketing, json: body)
        #expect(again.status == 200 && again.json["version"] as? Int == 1)
        #expect(again.json["startsAt"] as? String == "2026-12-01T00:00:00Z")
        #expect(try env.offers.changes(bundleId: nil, offerId: nil, afterId: 0, limit: 10).count == 1)
    }

    @Test("DELETE disables the offer and keeps it")
    func delete() throws {
        let env = try TestEnvironment()
        _ = env.send("PUT", "/v1/admin/offers/winback_50_3m", role: .marketing, json: Self.rule)
        let deleted = env.send("DELETE", "/v1/admin/offers/winback_50_3m", role: .marketing)
        #expect(deleted.status == 200 && deleted.json["enabled"] as? Bool == false)
        #expect(env.send("GET", "/v1/admin/offers/winback_50_3m", role: .marketing).json["enabled"] as? Bool == false)
        #expect(env.send("DELETE", "/v1/admin/offers/none", role: .marketing).status == 404)
        #expect(env.send("GET", "/v1/admin/offers/none", role: .marketing).code == "not_found")
    }

    @Test("rules that cannot be right are refused with 400 naming the fault", arguments: [
        ("\"minDaysSinceExpiry\": 60", "\"minDaysSinceExpiry\": 800", "above"),
        ("\"minPaidDays\": 180", "\"minPaidDays\": -1", "minPaidDays"),
        ("\"excludeRefunded\": true", "\"excludeRefunded\": true, \"maxAge\": 3", "unknown field 'maxAge'"),
        ("\"productIds\": [\"com.example.app.pro_monthly\", \"com.example.app.pro_yearly\"]", "\"productIds\": []", "productIds"),
        ("\"offerId\": \"winback_50_3m\"", "\"offerId\": \"other\"", "differs"),
        ("\"bundleId\": \"com.example.app\"", "\"bundleId\": \"com.unknown\"", "no app"),
        ("\"endsAt\": null", "\"endsAt\": \"2026-01-01T00:00:00Z\"", "before"),
        ("\"endsAt\": null", "\"endsAt\": \"yesterday\"", "RFC 3339"),
        ("\"storefronts\": [\"USA\", \"CAN\"]", "\"storefronts\": [\"usa\"]", "alpha-3"),
        ("\"maxSignaturesPerUserPerDay\": 5", "\"maxSignaturesPerUserPerDay\": 0", "at least 1"),
        ("\"priority\": 10", "\"priority\": \"high\"", "priority"),
    ])
    func invalid(from: String, to: String, fault: String) throws {
        let env = try TestEnvironment()
        let body = Self.rule.replacingOccurrences(of: from, with: to)
        #expect(body != Self.rule)
        let response = env.send("PUT", "/v1/admin/offers/winback_50_3m", role: .marketing, json: body)
        #expect(response.status == 400)
        #expect(response.code == "invalid_request")
        #expect((response.json["detail"] as? String)?.contains(fault) == true, "\(response.json["detail"] ?? "")")
        #expect(env.send("GET", "/v1/admin/offers/winback_50_3m", role: .marketing).status == 404, "nothing stored")
    }
}
