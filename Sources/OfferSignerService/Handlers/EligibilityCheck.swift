import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Decides whether a user may redeem an offer on a product, from the stored verified history.
struct EligibilityCheck {
    let history: any SubscriptionHistoryStore

    /// The decision for `userId` (lowercased app account token) on `rule` for `productId`.
    func decide(userId: String, rule: OfferRule, productId: String, now: Date) throws -> EligibilityDecision {
        let facts = try facts(userId: userId, bundleId: rule.bundleId, productId: productId, now: now)
        return EligibilityEvaluator.evaluate(facts: facts, rule: rule, now: now)
    }

    /// The user's facts in the subscription group of `productId`, or nil when unknown.
    func facts(userId: String, bundleId: String, productId: String, now: Date) throws -> HistoryFacts? {
        let userHistory = try history.history(userId: userId, bundleId: bundleId)
        var group = userHistory.transactions.first { $0.productId == productId }?.subscriptionGroupIdentifier
        if group == nil {
            group = try history.subscriptionGroup(productId: productId, bundleId: bundleId)
        }
        guard let group else { return nil }
        return userHistory.facts(group: group, now: now)
    }
}
