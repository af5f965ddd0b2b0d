import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Retention rules")
struct RetentionRuleTests {
    static let message = "7A4F2E4C-1B9D-4E1F-9C53-0B9C6F1E2D3A"

    @Test("a rule applies to its products and locales: a language matches its regions, case and _ do not matter")
    func applies() {
        let rule = RetentionRule(ruleId: "r", bundleId: "b", productIds: ["p1"], locales: ["en", "pt_BR"], messageIdentifier: Self.message)
        #expect(rule.applies(productId: "p1", locale: "en-US"))
        #expect(rule.applies(productId: "p1", locale: "EN"))
        #expect(rule.applies(productId: "p1", locale: "pt-br"))
        #expect(!rule.applies(productId: "p1", locale: "pt-PT"))
        #expect(!rule.applies(productId: "p1", locale: "eng"), "a prefix of letters is not a language")
        #expect(!rule.applies(productId: "p2", locale: "en-US"))
        let everywhere = RetentionRule(ruleId: "r", bundleId: "b", messageIdentifier: Self.message)
        #expect(everywhere.applies(productId: "anything", locale: "ja-JP"))
        var disabled = everywhere
        disabled.enabled = false
        #expect(!disabled.applies(productId: "anything", locale: "ja-JP"))
    }

    @Test("rules are tried highest priority first, then by ID")
    func order() {
        let rules = [("b", 1), ("a", 1), ("c", 5)].map { RetentionRule(ruleId: $0.0, bundleId: "x", priority: $0.1, messageIdentifier: Self.message) }
        #expect(RetentionRule.inPriorityOrder(rules).map(\.ruleId) == ["c", "a", "b"])
    }

    @Test("a rule that cannot be right is refused with every fault named")
    func validation() {
        #expect(RetentionRule(ruleId: "r", bundleId: "b", locales: ["en-US"], messageIdentifier: Self.message, offerId: "o",
                              fallbackMessageIdentifier: Self.message).validationProblems().isEmpty)
        let bad = RetentionRule(ruleId: "r", bundleId: "b", productIds: [], locales: ["english!"], messageIdentifier: "hello",
                                alternateProductId: "p2", offerId: "o", fallbackMessageIdentifier: "x")
        let problems = bad.validationProblems()
        #expect(problems.contains { $0.hasPrefix("'productIds' must not be empty") })
        #expect(problems.contains("'locales' entry 'english!' is not a locale such as en or en-US"))
        #expect(problems.contains("'messageIdentifier' must be the UUID of a retention message"))
        #expect(problems.contains("'fallbackMessageIdentifier' must be the UUID of a retention message"))
        #expect(problems.contains { $0.hasPrefix("'alternateProductId' and 'offerId' exclude each other") })
        let fallbackAlone = RetentionRule(ruleId: "r", bundleId: "b", messageIdentifier: Self.message, fallbackMessageIdentifier: Self.message)
        #expect(fallbackAlone.validationProblems() == ["'fallbackMessageIdentifier' applies only with 'offerId'"])
    }

    @Test("decoding fills the defaults and refuses what is missing; encoding writes every key")
    func coding() throws {
        let rule = try JSONDecoder().decode(RetentionRule.self, from: Data(#"{"ruleId": "r", "bundleId": "b", "messageIdentifier": "m"}"#.utf8))
        #expect(rule.enabled && rule.priority == 0 && rule.productIds == nil && rule.offerId == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RetentionRule.self, from: Data(#"{"ruleId": "r", "bundleId": "b"}"#.utf8))
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(rule)) as? [String: Any]
        #expect(Set(json?.keys ?? [:].keys) == ["ruleId", "bundleId", "enabled", "priority", "productIds", "locales", "messageIdentifier",
                                                "alternateProductId", "offerId", "fallbackMessageIdentifier"])
    }
}
