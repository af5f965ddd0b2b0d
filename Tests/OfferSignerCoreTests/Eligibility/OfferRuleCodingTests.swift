import Foundation
import Testing
@testable import OfferSignerCore

/// Offer rules as marketing writes them: every criterion round-trips through JSON, and an
/// unknown field or value is refused.
@Suite struct OfferRuleCodingTests {
    static let json = """
    {"offerId": "winback_50_3m", "bundleId": "com.example.app", "productIds": ["com.example.app.pro_monthly"],
     "enabled": true, "priority": 10, "startsAt": "2026-12-01T00:00:00Z", "endsAt": null,
     "eligibility": {"requireLapsed": true, "includeBillingRetry": true, "minPaidDays": 180, "minDaysSinceExpiry": 60,
                     "maxDaysSinceExpiry": 730, "waitBetweenOffersDays": 60, "maxRedemptionsPerUser": 1,
                     "excludeRefunded": true, "storefronts": ["USA", "CAN"], "expirationIntents": [1, 3],
                     "appleWinBack": "exclude"},
     "limits": {"maxSignaturesPerUserPerDay": 5}}
    """

    static func decode(_ json: String) throws -> OfferRule {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decodeStrictly(OfferRule.self, from: Data(json.utf8))
    }

    @Test func everyCriterionRoundTrips() throws {
        let rule = try Self.decode(Self.json)
        let criteria = rule.eligibility
        #expect(criteria.requireLapsed == true && criteria.includeBillingRetry == true)
        #expect(criteria.expirationIntents == [1, 3] && criteria.appleWinBack == .exclude)
        #expect(rule.validationProblems().isEmpty)

        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(rule)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let eligibility = try #require(object["eligibility"] as? [String: Any])
        #expect(eligibility["includeBillingRetry"] as? Bool == true)
        #expect(eligibility["expirationIntents"] as? [Int] == [1, 3])
        #expect(eligibility["appleWinBack"] as? String == "exclude")
        #expect(try Self.decode(String(decoding: data, as: UTF8.self)) == rule)
    }

    @Test func leftOutCriteriaStayOut() throws {
        let rule = try Self.decode(#"{"offerId": "o", "bundleId": "b", "productIds": ["p"], "eligibility": {"requireLapsed": true}}"#)
        #expect(rule.eligibility == EligibilityCriteria(requireLapsed: true))
        let data = try JSONEncoder().encode(rule.eligibility)
        #expect(String(decoding: data, as: UTF8.self) == #"{"requireLapsed":true}"#)
    }

    @Test func unknownFieldsAndValuesAreRefused() {
        #expect(throws: DecodingError.self) {
            try Self.decode(Self.json.replacingOccurrences(of: "\"appleWinBack\": \"exclude\"", with: "\"appleWinBack\": \"maybe\""))
        }
        #expect(throws: DecodingError.self) {
            try Self.decode(Self.json.replacingOccurrences(of: "\"includeBillingRetry\"", with: "\"includeBillingRetries\""))
        }
        #expect(throws: DecodingError.self) {
            try Self.decode(Self.json.replacingOccurrences(of: "[1, 3]", with: "[\"1\"]"))
        }
    }
}
