import Foundation

/// Decides whether a user gets a product's introductory offer: a pure function of the user's
/// history facts in the product's subscription group, when they last had an introductory
/// offer there, the rule that applies (if any) and the time.
public enum IntroductoryOfferEvaluator {
    /// Apple's default, then the rule's changes to it, with one reason per criterion that
    /// denies (the decision's `eligible` is `allowIntroductoryOffer`):
    ///
    /// - `introductoryOfferRedeemed`: the user had an introductory offer in the group, and
    ///   the rule has no `allowAgain`, or fails one of its criteria (each also reported, as
    ///   `allowAgain.<criterion>`);
    /// - `excludeRefunded` and `storefronts` of the rule, as offer rules read them.
    ///
    /// `facts` is nil for a user without history in the group, `lastIntroductoryOffer` nil
    /// for one who never had an introductory offer there.
    public static func evaluate(facts: HistoryFacts?, lastIntroductoryOffer: Date?, rule: IntroductoryOfferRule?,
                                now: Date) -> EligibilityDecision {
        var reasons: [EligibilityReason] = []
        if let lastIntroductoryOffer {
            let redeemed = EligibilityReason(
                criterion: "introductoryOfferRedeemed", required: .bool(false), actual: .bool(true),
                message: "Had an introductory offer in this subscription group (from \(lastIntroductoryOffer.formatted(.iso8601))); "
                    + "the App Store gives one per group.")
            if let again = rule?.allowAgain {
                let failed = criteria(again, of: rule!, facts: facts, now: now)
                if !failed.isEmpty {
                    reasons.append(redeemed)
                    reasons += failed.map { reason in
                        var reason = reason
                        reason.criterion = "allowAgain." + reason.criterion
                        return reason
                    }
                }
            } else {
                reasons.append(redeemed)
            }
        }
        if let rule {
            reasons += criteria(EligibilityCriteria(excludeRefunded: rule.excludeRefunded, storefronts: rule.storefronts),
                                of: rule, facts: facts, now: now)
        }
        return EligibilityDecision(reasons: reasons)
    }

    /// The failed `criteria`, evaluated as an offer rule's eligibility.
    private static func criteria(_ criteria: EligibilityCriteria, of rule: IntroductoryOfferRule, facts: HistoryFacts?,
                                 now: Date) -> [EligibilityReason] {
        let asOffer = OfferRule(offerId: rule.ruleId, bundleId: rule.bundleId, productIds: ["-"], eligibility: criteria)
        return EligibilityEvaluator.evaluate(facts: facts, rule: asOffer, now: now).reasons
    }
}

extension SubscriptionTransaction {
    /// When the user last began an introductory offer (`offerType` 1) in `group`, from
    /// `environment`'s transactions alone; nil when never. Access shared by a family member is
    /// not the user's own offer.
    public static func lastIntroductoryOffer(in transactions: [SubscriptionTransaction], group: String,
                                             environment: AppStoreEnvironment) -> Date? {
        transactions
            .filter { $0.environment == environment && $0.subscriptionGroupIdentifier == group }
            .filter { $0.knownOfferType == .introductoryOffer && !$0.isFamilyShared }
            .map(\.purchaseDate)
            .max()
    }
}
