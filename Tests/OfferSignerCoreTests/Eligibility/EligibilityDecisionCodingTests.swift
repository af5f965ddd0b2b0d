import Foundation
import Testing
@testable import OfferSignerCore

@Suite struct EligibilityDecisionCodingTests {
    typealias T = EligibilityTestData

    @Test func decisionEncodesReasonsAsPlainJSON() throws {
        let decision = EligibilityDecision(reasons: [
            EligibilityReason(criterion: "minPaidDays", required: .int(180), actual: .int(95),
                              message: "Paid 95 days; this offer needs at least 180."),
            EligibilityReason(criterion: "excludeRefunded", required: .bool(false), actual: .bool(true), message: "m"),
            EligibilityReason(criterion: "storefronts", required: .strings(["USA", "CAN"]), actual: .null, message: "m"),
            EligibilityReason(criterion: "startsAt", required: .string("2026-12-01T00:00:00Z"),
                              actual: .string("2026-11-30T05:45:33Z"), message: "m"),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(decision), as: UTF8.self)
        #expect(json == """
            {"eligible":false,"reasons":[\
            {"actual":95,"criterion":"minPaidDays","message":"Paid 95 days; this offer needs at least 180.","required":180},\
            {"actual":true,"criterion":"excludeRefunded","message":"m","required":false},\
            {"actual":null,"criterion":"storefronts","message":"m","required":["USA","CAN"]},\
            {"actual":"2026-11-30T05:45:33Z","criterion":"startsAt","message":"m","required":"2026-12-01T00:00:00Z"}]}
            """)
        #expect(try JSONDecoder().decode(EligibilityDecision.self, from: Data(json.utf8)) == decision)
    }

    @Test func eligibleDecisionEncodesEmptyReasons() throws {
        let decision = T.evaluate(T.facts(T.monthly(from: 0, to: 300), now: 400), now: 400)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(decision), as: UTF8.self) == #"{"eligible":true,"reasons":[]}"#)
    }

    @Test func reasonValuesDecodeFromPlainJSON() throws {
        let values = try JSONDecoder().decode([JSONValue].self, from: Data(#"[1, false, "x", ["a"], [1, 3], null]"#.utf8))
        #expect(values == [.int(1), .bool(false), .string("x"), .strings(["a"]), .ints([1, 3]), .null])
        #expect(String(decoding: try JSONEncoder().encode(values), as: UTF8.self) == #"[1,false,"x",["a"],[1,3],null]"#)
    }
}
