import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's judging step for introductory offers: whether the customer gets the
/// product's introductory offer, from the stored history and the introductory-offer rule of
/// the product or its subscription group, if any. Never a refusal: StoreKit takes a signed
/// `false` to withhold the offer. A customer whose consent was rescinded is refused outright.
struct IntroductoryOfferJudge: Sendable {
    let rules: any RuleStore
    let offers: any OfferStore
    let eligibility: EligibilityCheck
    let consent: ConsentCheck

    /// The decisions for `customer` on each of `productIds`, in order, each with the rule that
    /// made it (nil: none applies), from one read of the history and of the rules. With
    /// `refusingUnknown` (a store page), every product must be one the app knows — named by a
    /// verified transaction of the request's environment, by an introductory-offer rule or by
    /// an offer rule of the app — else the whole request is refused, naming the first unknown one.
    func judge(_ customer: BoundCustomer, productIds: [String], refusingUnknown: Bool, naming transactionId: String? = nil,
               now: Date) throws(SignRefusal) -> [(EligibilityDecision, IntroductoryOfferRule?)] {
        let history = try self.history(of: customer, naming: transactionId)
        let bundleId = customer.app.bundleId
        do {
            let rules = try rules.rules(IntroductoryOfferRule.self, bundleId: bundleId).map(\.rule)
            var named: Set<String>?
            var groups: [String?] = []
            for productId in productIds {
                let group = try eligibility.group(of: [productId], bundleId: bundleId, environment: customer.environment,
                                                  userHistory: history)
                if group == nil, refusingUnknown {
                    let known = try named ?? Self.productsNamed(by: rules, offers: try offers.offers(), bundleId: bundleId)
                    named = known
                    guard known.contains(productId) else { throw SignRefusal.unknownProduct(productId: productId, bundleId: bundleId) }
                }
                groups.append(group)
            }
            return zip(productIds, groups).map { productId, group in
                decide(customer, productId: productId, group: group, history: history, rules: rules, now: now)
            }
        } catch let refusal as SignRefusal {
            throw refusal
        } catch {
            throw .store(error)
        }
    }

    /// The products the app's introductory-offer rules and offer rules name, enabled or not.
    private static func productsNamed(by rules: [IntroductoryOfferRule], offers: [StoredOffer], bundleId: String) -> Set<String> {
        var products = Set(rules.flatMap { $0.productIds ?? [] })
        for offer in offers where offer.rule.bundleId == bundleId { products.formUnion(offer.rule.productIds) }
        return products
    }

    /// The history that decides, once the customer's consent (and that of the transaction the request names) is checked.
    private func history(of customer: BoundCustomer, naming transactionId: String?) throws(SignRefusal) -> UserHistory {
        let history: UserHistory
        do {
            history = try eligibility.history(of: customer)
        } catch {
            throw .store(error)
        }
        try consent.check(customer, history: history, naming: transactionId)
        return history
    }

    /// The decision on `productId` of subscription group `group` (nil: unknown), given the history and the app's rules.
    private func decide(_ customer: BoundCustomer, productId: String, group: String?, history: UserHistory,
                        rules: [IntroductoryOfferRule], now: Date) -> (EligibilityDecision, IntroductoryOfferRule?) {
        let rule = IntroductoryOfferRule.deciding(rules, productId: productId, group: group)
        let facts = group.flatMap { history.facts(group: $0, environment: customer.environment, now: now) }
        let last = group.flatMap {
            SubscriptionTransaction.lastIntroductoryOffer(in: history.transactions, group: $0, environment: customer.environment)
        }
        return (IntroductoryOfferEvaluator.evaluate(facts: facts, lastIntroductoryOffer: last, rule: rule, now: now), rule)
    }
}
