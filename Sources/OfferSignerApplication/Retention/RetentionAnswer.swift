import Foundation
import OfferSignerCore
import OfferSignerStore

/// The answer to a Retention Messaging request: Apple's `RealtimeResponseBody` as JSON, and
/// what it is.
public struct RetentionAnswer: Sendable, Hashable {
    public let kind: RetentionAnswerKind
    /// The retention rule that answered; nil when none did.
    public let ruleId: String?
    /// The response body: `{"message": …}`, `{"alternateProduct": …}`,
    /// `{"promotionalOffer": …}`, or `{}` when no rule answered.
    public let json: String
    /// The nonce of the promotional offer signed for it.
    public let signatureNonce: String?
    /// True when the App Store had asked this before and gets the recorded answer again.
    public let repeated: Bool

    init(kind: RetentionAnswerKind, ruleId: String?, json: String, signatureNonce: String?, repeated: Bool = false) {
        self.kind = kind
        self.ruleId = ruleId
        self.json = json
        self.signatureNonce = signatureNonce
        self.repeated = repeated
    }

    /// The answer recorded for a request asked again.
    init(repeating recorded: AnsweredRetentionRequest) {
        self.init(kind: recorded.answer, ruleId: recorded.ruleId, json: recorded.responseJSON,
                  signatureNonce: recorded.signatureNonce, repeated: true)
    }

    /// A text message (with or without an image).
    static func message(_ messageIdentifier: String, ruleId: String) -> RetentionAnswer {
        RetentionAnswer(kind: .message, ruleId: ruleId, signatureNonce: nil,
                        member: "message", [("messageIdentifier", .string(messageIdentifier))])
    }

    /// A switch-plan message suggesting `productId`.
    static func alternateProduct(_ messageIdentifier: String, productId: String, ruleId: String) -> RetentionAnswer {
        RetentionAnswer(kind: .alternateProduct, ruleId: ruleId, signatureNonce: nil, member: "alternateProduct",
                        [("messageIdentifier", .string(messageIdentifier)), ("productId", .string(productId))])
    }

    /// A promotional-offer message with the signed V2 offer.
    static func promotionalOffer(_ messageIdentifier: String, issued: IssuedOffer, ruleId: String) -> RetentionAnswer {
        RetentionAnswer(kind: .promotionalOffer, ruleId: ruleId, signatureNonce: issued.offer.nonce, member: "promotionalOffer",
                        [("messageIdentifier", .string(messageIdentifier)), ("promotionalOfferSignatureV2", .string(issued.signature))])
    }

    /// No rule answered: an empty body, so the App Store shows the default message configured
    /// for the product and locale.
    static let noMessage = RetentionAnswer(kind: .none, ruleId: nil, json: "{}", signatureNonce: nil)

    private init(kind: RetentionAnswerKind, ruleId: String, signatureNonce: String?, member: String, _ fields: [(String, JSONValue)]) {
        self.init(kind: kind, ruleId: ruleId, json: "{" + JSONValue.string(member).encoded + ":" + JSONValue.object(fields) + "}",
                  signatureNonce: signatureNonce)
    }
}
