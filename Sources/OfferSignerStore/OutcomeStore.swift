import Foundation
import OfferSignerCore

/// What became of the offers: redemptions found in the verified history, each matched to the
/// signature that explains it (or not), and the users held out of offers. Derived data: the
/// redemptions are re-derived from the history and the signature log whenever a subscription's
/// history changes, and can be rebuilt whole; the holdout decisions are recorded as they are made.
public protocol OutcomeStore: Sendable {
    /// Re-derives the redemptions of one subscription (app, environment, original transaction)
    /// from the stored history and the signature log, and stores them. Returns the
    /// redemptions of managed offers (offers this service holds a rule for) that are newly
    /// found and unmatched.
    @discardableResult
    func refresh(_ subscription: SubscriptionRef) throws -> [RedemptionRecord]

    /// Every subscription of the history with a period under a promotional or win-back offer.
    func subscriptionsWithOffers() throws -> [SubscriptionRef]

    /// Forgets every derived redemption (before a rebuild).
    func deleteAllRedemptions() throws

    /// Redemptions matching `filter`, in the order they were first found, after position `afterId`.
    func redemptions(matching filter: RedemptionFilter, afterId: Int64, limit: Int) throws -> [RedemptionRecord]

    /// Records the first decision to hold `userKey` out of an offer; a later one changes nothing.
    func recordHoldout(_ decision: HoldoutDecision) throws

    /// The first decision of each user about the offer made before `before` (ms): from the
    /// signature log (treated: signed) and the recorded holdouts, the earlier one per user.
    func firstDecisions(bundleId: String, offerId: String, environment: AppStoreEnvironment, before: Int64) throws -> [UserDecision]

    /// Users by their first decision about the offer (see ``firstDecisions(bundleId:offerId:environment:before:)``)
    /// made in `from..<to` (ms), and how many of each group returned: had a transaction of
    /// `groupId` in `bundleId` and `environment` whose `purchaseDate` is after that decision
    /// (for a `transaction:` user, of that subscription; none when `groupId` is nil). Counted
    /// by the database, so that a large offer's users are never held in memory.
    func decisionReturns(bundleId: String, offerId: String, environment: AppStoreEnvironment, groupId: String?,
                         from: Int64, to: Int64) throws -> DecisionReturns

    /// Signatures of the offer with timestamps in `from..<to` (ms).
    func signatureCount(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> Int
}

/// One subscription: its app, environment and original transaction.
public struct SubscriptionRef: Sendable, Hashable {
    public var bundleId: String
    public var environment: AppStoreEnvironment
    public var originalTransactionId: String
}

/// A stored redemption with its match and the facts of its outcome.
public struct RedemptionRecord: Sendable, Hashable {
    /// Its position in the order redemptions were first found (the audit list's cursor).
    public var id: Int64
    public var run: RedemptionRun
    /// The nonce of the signature that explains it; nil when unmatched.
    public var signatureNonce: String?
    /// Whether the service holds a rule for its offer (a managed offer).
    public var managed: Bool

    public var matched: Bool { signatureNonce != nil }
}

/// Which redemptions an audit query wants; nil fields do not filter.
public struct RedemptionFilter: Sendable, Hashable {
    public var bundleId: String?
    public var offerId: String?
    public var environment: AppStoreEnvironment?
    public var matched: Bool?
    /// Inclusive lower bound on the first `purchaseDate`, ms.
    public var from: Int64?
    /// Exclusive upper bound on the first `purchaseDate`, ms.
    public var to: Int64?

    public init(bundleId: String? = nil, offerId: String? = nil, environment: AppStoreEnvironment? = nil, matched: Bool? = nil,
                from: Int64? = nil, to: Int64? = nil) {
        self.bundleId = bundleId
        self.offerId = offerId
        self.environment = environment
        self.matched = matched
        self.from = from
        self.to = to
    }
}

/// A user held out of an offer, at the first request that found them eligible.
public struct HoldoutDecision: Sendable, Hashable {
    public var bundleId: String
    public var offerId: String
    /// The app account token, or `transaction:` and the proven original transaction ID.
    public var userKey: String
    public var environment: AppStoreEnvironment
    /// ms since 1970.
    public var decidedAt: Int64
    public var percent: Int

    public init(bundleId: String, offerId: String, userKey: String, environment: AppStoreEnvironment, decidedAt: Int64, percent: Int) {
        self.bundleId = bundleId
        self.offerId = offerId
        self.userKey = userKey
        self.environment = environment
        self.decidedAt = decidedAt
        self.percent = percent
    }
}

/// A user's first decision about an offer.
public struct UserDecision: Sendable, Hashable {
    public var userKey: String
    /// ms since 1970.
    public var decidedAt: Int64
    /// Held out (true) or signed (false).
    public var heldOut: Bool
}

/// How many users were treated (signed) and held out of an offer, and how many of each returned.
public struct DecisionReturns: Sendable, Hashable {
    public var treatedUsers: Int = 0
    public var treatedReturned: Int = 0
    public var holdoutUsers: Int = 0
    public var holdoutReturned: Int = 0
}
