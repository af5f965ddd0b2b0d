import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("Managed rules decoded once per stored text")
struct DecodedRulesTests {
    @Test("each text decodes to its own rule, a text seen before to the same rule, past the capacity too")
    func exact() throws {
        let cache = DecodedRules()
        func text(_ offers: [String]) throws -> String {
            try RuleCoding.encode(Placement(placementId: "cancel_flow", bundleId: "com.example.app", offerIds: offers))
        }
        let first = try cache.decode(Placement.self, text(["a", "b"]))
        let second = try cache.decode(Placement.self, text(["b", "a"]))
        #expect(first.offerIds == ["a", "b"] && second.offerIds == ["b", "a"])
        #expect(try cache.decode(Placement.self, text(["a", "b"])) == first)
        for index in 0...DecodedRules.capacity { _ = try cache.decode(Placement.self, text(["o\(index)"])) }
        #expect(try cache.decode(Placement.self, text(["b", "a"])).offerIds == ["b", "a"])
    }
}
