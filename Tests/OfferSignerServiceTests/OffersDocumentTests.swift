import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import Testing

@Suite("The offers answer's JSON")
struct OffersDocumentTests {
    @Test("written directly, it is byte for byte what JSONEncoder writes, escapes and nesting included")
    func sameBytesAsJSONEncoder() throws {
        let reasons = [
            EligibilityReason(criterion: "minPaidDays", required: .int(180), actual: .int(95), message: "Paid 95 days; this offer needs at least 180."),
            EligibilityReason(criterion: "storefronts", required: .strings(["USA", "CAN"]), actual: .null,
                              message: "a \"quoted\" word, a back\\slash, a slash / , a tab\t, a new\nline, é and 🎁"),
            EligibilityReason(criterion: "excludeRefunded", required: .bool(false), actual: .array([.bool(true), .int(-3)]), message: ""),
        ]
        let documents = [
            UserHandler.OffersDocument(userId: "user-1", environment: .production, offers: []),
            UserHandler.OffersDocument(userId: "ユーザー", environment: .sandbox, offers: [
                .init(offerId: "winback_a", productIds: ["com.example.pro", "com.example.pro.yearly"], priority: 10, eligible: false,
                      reasons: reasons),
                .init(offerId: "winback_b", productIds: [], priority: -1, eligible: true, reasons: []),
            ]),
        ]
        for document in documents {
            let expected = String(decoding: try JSONCoding.encoder.encode(document), as: UTF8.self)
            #expect(document.json == expected)
        }
    }
}
