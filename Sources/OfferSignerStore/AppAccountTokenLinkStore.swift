import Foundation
import OfferSignerCore

/// The links of subscriptions to app account tokens made at Apple (Set App Account Token):
/// every attempt that ended, linked, refused or failed, kept for good as the audit trail of
/// who asked Apple to attribute which subscription to which user.
public protocol AppAccountTokenLinkStore: Sendable {
    /// Records an ended attempt; returns it with its ID.
    @discardableResult
    func record(_ link: AppAccountTokenLink) throws -> AppAccountTokenLink

    /// Attempts oldest first after the one with ID `afterId`, of one app when `bundleId` is
    /// given, of one subscription when `originalTransactionId` is.
    func links(bundleId: String?, originalTransactionId: String?, afterId: Int64, limit: Int) throws -> [AppAccountTokenLink]

    /// The token the subscription was last linked to here (nil: never linked).
    func linkedToken(bundleId: String, environment: AppStoreEnvironment, originalTransactionId: String) throws -> String?

    /// The subscriptions (original transaction IDs) of `environment` last linked here to
    /// `appAccountToken`, so a user's history includes them before Apple's next notification does.
    func linkedSubscriptions(appAccountToken: String, bundleId: String, environment: AppStoreEnvironment) throws -> [String]
}

/// One ended attempt to set a subscription's app account token at Apple.
public struct AppAccountTokenLink: Sendable, Hashable {
    /// How it ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Apple set the token.
        case linked
        /// Not asked, or not asked again: a different token is already set (here or at Apple),
        /// or Apple refuses it for good (a Family Sharing purchase, an unknown transaction).
        case refused
        /// Apple could not be reached or kept failing after the retries.
        case failed
    }

    /// 0 until recorded.
    public var id: Int64
    public var bundleId: String
    public var environment: AppStoreEnvironment
    public var originalTransactionId: String
    /// The token asked for, lowercased.
    public var appAccountToken: String
    public var outcome: Outcome
    /// The different token found already set, when that refused the link.
    public var existingToken: String?
    /// Why it was refused or failed; nil when linked.
    public var reason: String?
    /// Who asked: `service` (a proven sign or eligibility request) or `cli:$USER`.
    public var actor: String
    /// The request that proved the subscription (service), or nil.
    public var requestId: String?
    /// Whether the operator forced it over a token already set.
    public var forced: Bool
    /// Calls made to Set App Account Token.
    public var attempts: Int
    public var at: Date

    public init(id: Int64 = 0, bundleId: String, environment: AppStoreEnvironment, originalTransactionId: String,
                appAccountToken: String, outcome: Outcome, existingToken: String? = nil, reason: String? = nil, actor: String,
                requestId: String? = nil, forced: Bool = false, attempts: Int, at: Date) {
        self.id = id
        self.bundleId = bundleId
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.appAccountToken = appAccountToken
        self.outcome = outcome
        self.existingToken = existingToken
        self.reason = reason
        self.actor = actor
        self.requestId = requestId
        self.forced = forced
        self.attempts = attempts
        self.at = at
    }
}
