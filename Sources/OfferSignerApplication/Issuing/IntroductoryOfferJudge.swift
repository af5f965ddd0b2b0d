import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's judging step for introductory offers: whether the customer gets the
/// product's introductory offer, from the stored history and the introductory-offer rule of
/// the product or its subscription group, if any. Never a refusal: StoreKit takes a signed
/// `false` to withhold the offer. A customer whose consent was rescinded is refused outright.
struct IntroductoryOfferJudge: Sendable {
    let rules: any RuleStore
    let eligibility: EligibilityCheck
    let consent: ConsentCheck

    /// The decision for `customer` on `productId`, and the rule that made it (nil: none applies).
    func judge(_ customer: BoundCustomer, productId: String, now: Date) throws(SignRefusal) -> (EligibilityDecision, IntroductoryOfferRule?) {
        let history: UserHistory
        do {
            history = try eligibility.history(of: customer)
        } catch {
            throw .store(error)
        }
        try consent.check(customer, history: history)
        do {
            let bundleId = customer.app.bundleId
            let group = try eligibility.group(of: [productId], bundleId: bundleId, environment: customer.environment,
                                              userHistory: history)
            let rule = IntroductoryOfferRule.deciding(try rules.rules(IntroductoryOfferRule.self, bundleId: bundleId).map(\.rule),
                                                      productId: productId, group: group)
            let facts = group.flatMap { history.facts(group: $0, environment: customer.environment, now: now) }
            let last = group.flatMap {
                SubscriptionTransaction.lastIntroductoryOffer(in: history.transactions, group: $0, environment: customer.environment)
            }
            return (IntroductoryOfferEvaluator.evaluate(facts: facts, lastIntroductoryOffer: last, rule: rule, now: now), rule)
        } catch {
            throw .store(error)
        }
    }
}
