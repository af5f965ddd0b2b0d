import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's judging step for promotional offers: the offer's rule, and the
/// decision on it from the customer's stored history, with every failed criterion. A refusal
/// is counted in the offer's activity.
///
/// With an `UnknownUserLookup`, a user with no known history whose request names a
/// `transactionId` has that transaction's history fetched (within the lookup's timeout) before
/// the decision; a fetch that fails or runs late leaves the decision to what is known. A
/// retention request never waits on it: Apple waits only briefly.
struct PromotionalOfferJudge: Sendable {
    let offers: any OfferStore
    let eligibility: EligibilityCheck
    let consent: ConsentCheck
    let activity: OfferActivity
    let unknownUsers: UnknownUserLookup?
    /// Where holdout decisions are recorded (nil: not recorded, as in tests without outcomes).
    let holdouts: (any OutcomeStore)?
    /// The App Store Connect catalogs: a fresh one that lacks the offer refuses it (nil: not checked).
    let catalogs: AppStoreCatalogs?
    /// Counts the offers refused as not at Apple.
    let metrics: Metrics?

    /// The rule of `offerId` in the app, for `productId`.
    func rule(_ offerId: String, productId: String, bundleId: String) throws(SignRefusal) -> OfferRule {
        let stored: StoredOffer?
        do {
            stored = try offers.offer(bundleId: bundleId, offerId: offerId)
        } catch {
            throw .store(error)
        }
        guard let rule = stored?.rule else {
            throw .offerNotFound(offerId: offerId, bundleId: bundleId)
        }
        guard rule.productIds.contains(productId) else {
            throw .productNotInOffer(offerId: offerId, productId: productId)
        }
        // Only a fresh catalog refuses; a stale or missing one (or one that cannot be read) never blocks.
        if let entry = catalogs?.cached(bundleId: bundleId), let catalog = entry.catalog, catalogs?.isFresh(entry.syncedAt) == true,
           let syncedAt = entry.syncedAt, let gap = catalog.gaps(offerId: offerId, productIds: [productId]).first {
            metrics?.recordOfferNotAtApple(bundleId: bundleId, offerId: offerId)
            throw .offerNotAtApple(offerId: offerId, gap: gap, syncedAt: syncedAt)
        }
        return rule
    }

    /// Refuses with the decision's reasons unless `customer` is eligible for `rule` on
    /// `request`'s product; refuses a customer whose consent was rescinded first.
    /// `consented`: the customer's history, already read and its consent checked (a placement
    /// in an experiment checks consent before it assigns the arm); nil reads and checks here.
    func judge(_ customer: BoundCustomer, rule: OfferRule, request: IssueRequest, now: Date,
               consented: UserHistory? = nil) throws(SignRefusal) {
        let history: UserHistory
        if let consented { history = consented } else { history = try consentedHistory(customer, request: request) }
        let decision: EligibilityDecision
        do {
            decision = try eligibility.decide(userHistory: history, rule: rule, productId: request.productId,
                                              environment: customer.environment, now: now)
        } catch {
            throw .store(error)
        }
        guard decision.eligible else {
            activity.recordRefusal(OfferKey(bundleId: rule.bundleId, offerId: rule.offerId), criteria: decision.reasons.map(\.criterion),
                                   at: now)
            throw .notEligible(decision)
        }
        try holdOut(customer, rule: rule, now: now)
    }

    /// The customer's history (fetched first for an unknown user when a lookup is configured),
    /// once the consent check let them through.
    func consentedHistory(_ customer: BoundCustomer, request: IssueRequest) throws(SignRefusal) -> UserHistory {
        var history: UserHistory
        do {
            history = try eligibility.history(of: customer)
            if history.transactions.isEmpty, request.source != .retention, let unknownUsers, let transactionId = request.transactionId,
               unknownUsers.lookUp(bundleId: customer.app.bundleId, transactionId: transactionId) == .fetched {
                history = try eligibility.history(of: customer)
            }
        } catch {
            throw .store(error)
        }
        try consent.check(customer, history: history, naming: request.transactionId)
        return history
    }

    /// Refuses an otherwise-eligible customer who is held out of the offer (``OfferHoldout``):
    /// the user's first decision stands (a held-out user stays held out while the offer has a
    /// holdout, a signed one is never held out); an undecided user falls in by the hash, and
    /// that first decision is recorded. The refusal counts under the `holdout` criterion.
    private func holdOut(_ customer: BoundCustomer, rule: OfferRule, now: Date) throws(SignRefusal) {
        guard rule.holdoutPercent > 0 else { return }
        let user = OfferHoldout.userKey(appAccountToken: customer.userId, provenOriginalTransactionId: customer.provenSubscription)
        do {
            let first = try holdouts?.firstDecision(bundleId: rule.bundleId, offerId: rule.offerId, userKey: user)
            guard OfferHoldout.held(bundleId: rule.bundleId, offerId: rule.offerId, user: user, percent: rule.holdoutPercent,
                                    firstDecisionHeldOut: first?.heldOut) else { return }
            if first == nil {
                try holdouts?.recordHoldout(HoldoutDecision(bundleId: rule.bundleId, offerId: rule.offerId, userKey: user,
                                                            environment: customer.environment, decidedAt: now.milliseconds,
                                                            percent: rule.holdoutPercent))
            }
        } catch {
            throw .store(error)
        }
        let reason = OfferHoldout.reason(percent: rule.holdoutPercent)
        activity.recordRefusal(OfferKey(bundleId: rule.bundleId, offerId: rule.offerId), criteria: [reason.criterion], at: now)
        throw .notEligible(EligibilityDecision(reasons: [reason]))
    }
}
