import Foundation
import OfferSignerCore

/// The Retention Messaging requests this service answered, by app, environment and the App
/// Store's `requestIdentifier`: a repeated request gets the recorded answer again instead of a
/// second signature. Answers are kept for a configured number of days, then pruned.
public protocol RetentionRequestStore: Sendable {
    /// The answer recorded for `requestIdentifier` (lowercased) of the app in the environment, if any.
    func answered(bundleId: String, environment: AppStoreEnvironment, requestIdentifier: String) throws -> AnsweredRetentionRequest?
    /// Records `request` durably (group-committed with concurrent callers) and returns it; when
    /// a request of the same app, environment and identifier was recorded first, that one is
    /// kept and returned.
    func record(_ request: AnsweredRetentionRequest) throws -> AnsweredRetentionRequest
    /// Deletes up to `limit` answers given before `cutoff`, oldest first; how many it deleted.
    func prune(answeredBefore cutoff: Date, limit: Int) throws -> Int
}

/// One answered Retention Messaging request.
public struct AnsweredRetentionRequest: Sendable, Hashable {
    /// Apple's `requestIdentifier`, lowercased.
    public var requestIdentifier: String
    public var bundleId: String
    public var environment: AppStoreEnvironment
    public var originalTransactionId: String
    public var productId: String
    public var userLocale: String
    /// The app account token of the subscription's transactions, when the history has one.
    public var userId: String?
    /// The retention rule that answered; nil when none did (the App Store shows its default message).
    public var ruleId: String?
    /// What was answered.
    public var answer: RetentionAnswerKind
    /// The nonce of the promotional offer signed for the answer, which the signature log keeps.
    public var signatureNonce: String?
    /// The response body exactly as sent.
    public var responseJSON: String
    /// When the App Store signed the request, milliseconds since 1970.
    public var signedDate: Int64
    public var answeredAt: Date

    public init(requestIdentifier: String, bundleId: String, environment: AppStoreEnvironment, originalTransactionId: String,
                productId: String, userLocale: String, userId: String?, ruleId: String?, answer: RetentionAnswerKind,
                signatureNonce: String?, responseJSON: String, signedDate: Int64, answeredAt: Date) {
        self.requestIdentifier = requestIdentifier
        self.bundleId = bundleId
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.userLocale = userLocale
        self.userId = userId
        self.ruleId = ruleId
        self.answer = answer
        self.signatureNonce = signatureNonce
        self.responseJSON = responseJSON
        self.signedDate = signedDate
        self.answeredAt = answeredAt
    }
}

/// The kinds of answer to a Retention Messaging request (the member of Apple's
/// `RealtimeResponseBody` it carries).
public enum RetentionAnswerKind: String, Sendable, Hashable, Codable, CaseIterable {
    case message
    case alternateProduct
    case promotionalOffer
    /// No rule answered: an empty body, and the App Store shows its default message.
    case none
}
