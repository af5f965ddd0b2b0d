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

    /// The decision that stands for `userKey` about the offer: treated from its first signature
    /// when the log holds one (a signed user is never held out), else held out from its recorded
    /// holdout, else nil (not decided yet).
    func firstDecision(bundleId: String, offerId: String, userKey: String) throws -> UserDecision?

    /// The decision of each user about the offer made before `before` (ms): from the signature
    /// log (treated, from the first signature) or else the recorded holdouts (held out); a user
    /// with a signature is never held out.
    func firstDecisions(bundleId: String, offerId: String, environment: AppStoreEnvironment, before: Int64) throws -> [UserDecision]

    /// Users by their first decision about the offer (see ``firstDecisions(bundleId:offerId:environment:before:)``)
    /// made in `from..<to` (ms), and how many of each group returned: had a transaction of
    /// `groupId` in `bundleId` and `environment` whose `purchaseDate` is at or after that decision
    /// (for a `transaction:` user, of that subscription; none when `groupId` is nil). Counted
    /// by the database, so that a large offer's users are never held in memory.
    func decisionReturns(bundleId: String, offerId: String, environment: AppStoreEnvironment, groupId: String?,
                         from: Int64, to: Int64) throws -> DecisionReturns

    /// Signatures of the offer with timestamps in `from..<to` (ms).
    func signatureCount(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> Int
}
