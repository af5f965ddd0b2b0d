import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// `offer.signed` as the signature log's writer writes it, directly, is the event's document
/// to the byte, whatever the record holds.
@Suite("offer.signed written directly")
struct SignedEventTests {
    static func logged(userId: String = "user-a", transactionId: String? = nil, allowIntroductoryOffer: Bool? = nil,
                       source: SignatureSource = .api, requestId: String = "req-1") -> LoggedSignature {
        let record = SignatureRecord(nonce: "0d6c3d3e-8f7a-4d7e-9a51-5b0e0c6f7d21", format: .jws, bundleId: "com.example.app",
                                     productId: "pro.monthly", offerId: "winback-50", userId: userId, keyId: "KEY123",
                                     timestamp: 1_800_000_123_456, signature: "MEUCsecret", transactionId: transactionId,
                                     apiKeyName: "ios-app", requestId: requestId, recordedAt: 1_800_000_123_460, source: source,
                                     allowIntroductoryOffer: allowIntroductoryOffer)
        return LoggedSignature(sequence: 4_294_967_301, record: record, previousHash: String(repeating: "0", count: 64), hash: "h")
    }

    @Test("the same text as the event's document, for every shape of record", arguments: [
        logged(),
        logged(userId: "", transactionId: "2000000123456789"),
        logged(allowIntroductoryOffer: true, source: .retention),
        logged(allowIntroductoryOffer: false),
        logged(userId: "quote \" backslash \\ tab \t newline \n bell \u{07} é 👍", requestId: "r\"1"),
        logged(userId: "a backslash alone \\ and é", requestId: "bell\u{07}alone"),
    ])
    func sameDocument(logged: LoggedSignature) throws {
        let id = SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID())
        let direct = SignedEvent(logged, id: id)
        let event = WebhookEvents.signed(logged, id: id)
        #expect(direct.document == event.document)
        #expect(direct.id == event.id && direct.type == event.type && direct.bundleId == event.bundleId)
        #expect(direct.orderingKey == event.orderingKey && direct.occurredAt == event.occurredAt)
        #expect(try JSONSerialization.jsonObject(with: Data(direct.document.utf8)) is [String: Any])
        #expect(!direct.document.contains("MEUCsecret"))
        // Prepared before the append (on the request's thread), numbered by the writer after it.
        let prepared = SignedEvent(logged.record, id: id)
        #expect(try #require(prepared.numbered(logged)).document == event.document)
        var other = logged
        other.record.nonce = "another-nonce"
        #expect(prepared.numbered(other) == nil, "only the entry of its own record numbers it")
    }
}
