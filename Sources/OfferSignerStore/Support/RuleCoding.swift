import Foundation
import OfferSignerCore

/// How rules are kept at rest: JSON with ISO 8601 dates.
enum RuleCoding {
    static func encode(_ rule: OfferRule) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(rule), as: UTF8.self)
    }

    static func decode(_ json: String) throws -> OfferRule {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(OfferRule.self, from: Data(json.utf8))
    }

    /// A row of `rule_json, version, created_at_ms, updated_at_ms`.
    static func storedOffer(_ row: some StoreRow) throws -> StoredOffer {
        StoredOffer(rule: try decode(row.text(0)), version: row.int(1),
                    createdAt: Date(milliseconds: row.int64(2)), updatedAt: Date(milliseconds: row.int64(3)))
    }
}
