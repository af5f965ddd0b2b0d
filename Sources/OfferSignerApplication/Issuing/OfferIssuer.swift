import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline, one for every signature the service makes: promotional offers
/// (legacy and JWS) asked through the API, retention offers answered to the App Store, and
/// introductory-offer eligibility. Each goes through the same three steps:
///
/// 1. ``CustomerBinder``: the app, the environment, the customer's proof → ``BoundCustomer``;
/// 2. a judge (``PromotionalOfferJudge``, ``IntroductoryOfferJudge``): the rule → a decision with reasons;
/// 3. ``SignatureRecorder``: sign with the app's active key, append the record durably (the
///    offer's daily quota checked inside the commit), map the log's failures.
///
/// A signature is returned only after its record is durable. Quotas are the offer's whoever
/// asks: retention offers count against the same quota. No HTTP here.
public struct OfferIssuer: Sendable {
    let binder: CustomerBinder
    let promotional: PromotionalOfferJudge
    let introductory: IntroductoryOfferJudge
    let recorder: SignatureRecorder
    let clock: WallClock

    /// - Parameters:
    ///   - unknownUsers: fetches the history of users with none known
    ///     (`OFFER_SIGNER_FETCH_UNKNOWN_USERS`); nil when off.
    ///   - holdouts: where users held out of offers are recorded (nil: nowhere).
    public init(keyRing: KeyRing, verification: AppStoreVerification, offers: any OfferStore, rules: any RuleStore,
                history: any SubscriptionHistoryStore, signatures: any SignatureLog, activity: OfferActivity,
                unknownUsers: UnknownUserLookup?, holdouts: (any OutcomeStore)? = nil, clock: WallClock, metrics: Metrics,
                logger: Logger) {
        let eligibility = EligibilityCheck(history: history)
        binder = CustomerBinder(keyRing: keyRing, proofs: ProofVerifier(verification: verification, clock: clock), history: history)
        promotional = PromotionalOfferJudge(offers: offers, eligibility: eligibility, activity: activity, unknownUsers: unknownUsers,
                                            holdouts: holdouts)
        introductory = IntroductoryOfferJudge(rules: rules, eligibility: eligibility)
        recorder = SignatureRecorder(signatures: signatures, activity: activity, clock: clock, metrics: metrics, logger: logger)
        self.clock = clock
    }

    /// Signs `request`'s promotional offer when the customer is eligible, or says why not.
    public func issue(_ request: IssueRequest) throws(SignRefusal) -> IssuedOffer {
        let customer = try binder.bind(CustomerClaim(request))
        let rule = try promotional.rule(request.offerId, productId: request.productId, bundleId: customer.app.bundleId)
        let now = clock.now
        try promotional.judge(customer, rule: rule, request: request, now: now)
        let offer = PromotionalOfferRequest(
            bundleId: customer.app.bundleId, keyIdentifier: customer.app.signer.keyIdentifier, productId: request.productId,
            offerId: rule.offerId, appAccountToken: customer.userId, nonce: recorder.nonce(at: now), timestamp: now.milliseconds,
            transactionId: customer.provenSubscription ?? request.transactionId)
        return try recorder.sign(offer, format: request.format, app: customer.app, quota: rule.limits.maxSignaturesPerUserPerDay,
                                 requestedBy: request.requestedBy, requestId: request.requestId, source: request.source)
    }

    /// Decides and signs `request`'s introductory-offer eligibility — allowed or not — or says
    /// why no signature was made.
    public func issue(_ request: IntroductoryOfferRequest) throws(SignRefusal) -> IssuedIntroductoryOffer {
        let customer = try binder.bind(CustomerClaim(request))
        let now = clock.now
        let (decision, rule) = try introductory.judge(customer, productId: request.productId, now: now)
        let eligibility = IntroductoryOfferEligibility(
            bundleId: customer.app.bundleId, keyIdentifier: customer.app.signer.keyIdentifier, productId: request.productId,
            allowIntroductoryOffer: decision.eligible, transactionId: request.transactionId, nonce: recorder.nonce(at: now),
            timestamp: now.milliseconds)
        let issued = try recorder.sign(eligibility, userId: customer.userId, app: customer.app, requestedBy: request.requestedBy,
                                       requestId: request.requestId)
        return IssuedIntroductoryOffer(issued: issued, decision: decision, ruleId: rule?.ruleId)
    }
}
