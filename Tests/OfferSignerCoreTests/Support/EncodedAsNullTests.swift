import Foundation
@testable import OfferSignerCore
import Testing

/// Rules are written with every key, an unset one as `null`, and read back with missing keys
/// as unset: what the admin API and the rule-change log have always shown.
@Suite("Optional fields written as null")
struct EncodedAsNullTests {
    private func object<T: Encodable>(_ value: T) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONCoding.encoder.encode(value)) as? [String: Any])
    }

    @Test("an unset optional is a null key, a set one its value; the JSON round-trips")
    func rules() throws {
        let retention = RetentionRule(ruleId: "r", bundleId: "b", messageIdentifier: "m", offerId: "o")
        let json = try object(retention)
        for key in ["productIds", "locales", "alternateProductId", "fallbackMessageIdentifier"] {
            #expect(json[key] is NSNull, "\(key)")
        }
        #expect(json["offerId"] as? String == "o")
        #expect(try JSONCoding.decoder.decode(RetentionRule.self, from: JSONCoding.encoder.encode(retention)) == retention)

        let introductory = IntroductoryOfferRule(ruleId: "i", bundleId: "b", storefronts: ["USA"])
        let introductoryJSON = try object(introductory)
        for key in ["productIds", "subscriptionGroupIds", "allowAgain", "excludeRefunded"] {
            #expect(introductoryJSON[key] is NSNull, "\(key)")
        }
        #expect(introductoryJSON["storefronts"] as? [String] == ["USA"])

        let offer = OfferRule(offerId: "o", bundleId: "b", productIds: ["p"], endsAt: Date(timeIntervalSince1970: 1_800_000_000))
        let offerJSON = try object(offer)
        #expect(offerJSON["startsAt"] is NSNull)
        #expect(offerJSON["endsAt"] as? String == "2027-01-15T08:00:00Z")
        #expect(try JSONCoding.decoder.decode(OfferRule.self, from: JSONCoding.encoder.encode(offer)) == offer)
    }

    @Test("a missing key and a null both read as nil")
    func missingKeys() throws {
        struct Document: Codable, Equatable {
            @EncodedAsNull var note: String?
        }
        #expect(try JSONDecoder().decode(Document.self, from: Data("{}".utf8)).note == nil)
        #expect(try JSONDecoder().decode(Document.self, from: Data(#"{"note":null}"#.utf8)).note == nil)
        #expect(try JSONDecoder().decode(Document.self, from: Data(#"{"note":"x"}"#.utf8)).note == "x")
        #expect(String(decoding: try JSONEncoder().encode(Document(note: nil)), as: UTF8.self) == #"{"note":null}"#)
    }
}
