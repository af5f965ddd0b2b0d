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
    /// Whether a customer's consent was rescinded (also asked by the retention responder).
    let consent: ConsentCheck
    /// Requests per customer (nil: no limit), keyed on what binding proved, never on the text sent.
    let customerLimit: TokenBucketLimiter?
    let clock: WallClock
    /// Links token-less subscriptions the asking device holds to their user at Apple, in the
    /// background, once a request is answered; never after a refusal (nil: off).
    let linker: AppAccountTokenLinker?
    /// Writes `offer.refused` for the webhooks that take it, before a refusal is answered.
    let refusals: OfferRefusalAnnouncer

    /// - Parameters:
    ///   - unknownUsers: fetches the history of users with none known
    ///     (`OFFER_SIGNER_FETCH_UNKNOWN_USERS`); nil when off.
    ///   - customerLimit: requests per customer through the API (promotional offers and
    ///     introductory eligibility; not the App Store's retention requests), nil for none.
    ///   - holdouts: where users held out of offers are recorded (nil: nowhere).
    ///   - linker: queues links of proven token-less subscriptions at Apple (`OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS`); nil when off.
    ///   - links: the links made, so that eligibility sees a linked subscription at once (nil: not looked up).
    ///   - catalogs: the App Store Connect catalogs: a fresh one refuses an offer Apple lacks, and
    ///     each one makes its products known with their subscription group (nil: not consulted).
    ///   - webhooks: where `offer.refused` is queued for the webhooks of the app that take it (nil: never).
    public init(keyRing: KeyRing, verification: AppStoreVerification, offers: any OfferStore, rules: any RuleStore,
                history: any SubscriptionHistoryStore, consents: any ConsentStore, signatures: any SignatureLog,
                activity: OfferActivity, unknownUsers: UnknownUserLookup?, customerLimit: TokenBucketLimiter? = nil,
                holdouts: (any OutcomeStore)? = nil, linker: AppAccountTokenLinker? = nil,
                links: (any AppAccountTokenLinkStore)? = nil, catalogs: AppStoreCatalogs? = nil,
                webhooks: (any WebhookStore)? = nil, clock: WallClock, metrics: Metrics, logger: Logger) {
        self.customerLimit = customerLimit
        self.linker = linker
        let eligibility = EligibilityCheck(history: history, links: links, catalogs: catalogs)
        consent = ConsentCheck(consents: consents, history: history)
        binder = CustomerBinder(keyRing: keyRing, proofs: ProofVerifier(verification: verification, clock: clock), history: history)
        promotional = PromotionalOfferJudge(offers: offers, eligibility: eligibility, consent: consent, activity: activity,
                                            unknownUsers: unknownUsers, holdouts: holdouts, catalogs: catalogs, metrics: metrics)
        introductory = IntroductoryOfferJudge(rules: rules, offers: offers, eligibility: eligibility, consent: consent)
        recorder = SignatureRecorder(signatures: signatures, activity: activity, clock: clock, metrics: metrics, logger: logger)
        self.clock = clock
        refusals = OfferRefusalAnnouncer(webhooks: webhooks, clock: clock)
    }

    /// Signs `request`'s promotional offer when the customer is eligible, or says why not (a
    /// refusal of the bound customer announced first to the webhooks that take `offer.refused`).
    public func issue(_ request: IssueRequest) throws(SignRefusal) -> IssuedOffer {
        let customer = try admit(request)
        let issued: IssuedOffer
        do {
            let rule = try promotional.rule(request.offerId, productId: request.productId, bundleId: customer.app.bundleId)
            issued = try sign(request, for: customer, rule: rule)
        } catch {
            throw refusals.announced(error, request, customer)
        }
        answered(request, customer)
        return issued
    }

    /// Step 1 of a promotional offer: binds the customer and, for the API, takes the request
    /// from the per-customer limit.
    func admit(_ request: IssueRequest) throws(SignRefusal) -> BoundCustomer {
        let customer = try binder.bind(CustomerClaim(request))
        if request.source == .api { try limit(customer) }
        return customer
    }

    /// Steps 2 and 3 of a promotional offer for a bound customer: the decision on `rule`, then
    /// the signature, returned once its record is durable.
    func sign(_ request: IssueRequest, for customer: BoundCustomer, rule: OfferRule) throws(SignRefusal) -> IssuedOffer {
        let now = clock.now
        try promotional.judge(customer, rule: rule, request: request, now: now)
        return try signJudged(request, for: customer, rule: rule, now: now)
    }

    /// Step 3 of a promotional offer the customer was judged eligible for at `now`: the
    /// signature, returned once its record is durable.
    func signJudged(_ request: IssueRequest, for customer: BoundCustomer, rule: OfferRule, now: Date) throws(SignRefusal) -> IssuedOffer {
        try recorder.sign(offer(request, for: customer, rule: rule, now: now), format: request.format, app: customer.app,
                          quota: rule.limits.maxSignaturesPerUserPerDay, requestedBy: request.requestedBy,
                          requestId: request.requestId, source: request.source)
    }

    /// Step 3 of the offer of a user's experiment arm: the signature, returned once its record
    /// and the user's `assignment` are durable in one commit (nothing signed when the user
    /// turned out assigned to another arm meanwhile: the assignment that stands instead).
    func signJudged(_ request: IssueRequest, for customer: BoundCustomer, rule: OfferRule, now: Date,
                    assigning assignment: SignedAssignment) throws(SignRefusal) -> AssignedSignature {
        try recorder.sign(offer(request, for: customer, rule: rule, now: now), format: request.format, app: customer.app,
                          quota: rule.limits.maxSignaturesPerUserPerDay, requestedBy: request.requestedBy,
                          requestId: request.requestId, source: request.source, assigning: assignment)
    }

    /// What is signed for `request`'s customer under `rule` at `now`, with a fresh nonce.
    private func offer(_ request: IssueRequest, for customer: BoundCustomer, rule: OfferRule, now: Date) -> PromotionalOfferRequest {
        PromotionalOfferRequest(
            bundleId: customer.app.bundleId, keyIdentifier: customer.app.signer.keyIdentifier, productId: request.productId,
            offerId: rule.offerId, appAccountToken: customer.userId, nonce: recorder.nonce(at: now), timestamp: now.milliseconds,
            transactionId: customer.provenSubscription ?? request.transactionId)
    }

    /// What follows a signature answered to the API: the proven subscription's link at Apple.
    func answered(_ request: IssueRequest, _ customer: BoundCustomer) {
        if request.source == .api { linker?.offer(customer, requestId: request.requestId) }
    }

    /// Decides and signs `request`'s introductory-offer eligibility — allowed or not — for
    /// each of its products, in order, or says why none was signed: one binding of the
    /// customer, one read of the history and the rules, one request taken from the
    /// per-customer limit, and every record appended in one commit before any signature is
    /// returned.
    public func issue(_ request: IntroductoryOfferRequest) throws(SignRefusal) -> [IssuedIntroductoryOffer] {
        let customer = try binder.bind(CustomerClaim(request))
        try limit(customer)
        let now = clock.now
        let decisions = try introductory.judge(customer, productIds: request.productIds,
                                               refusingUnknown: request.refusesUnknownProducts,
                                               naming: request.transactionId, now: now)
        let eligibilities = zip(request.productIds, decisions).map { productId, decided in
            IntroductoryOfferEligibility(
                bundleId: customer.app.bundleId, keyIdentifier: customer.app.signer.keyIdentifier, productId: productId,
                allowIntroductoryOffer: decided.0.eligible, transactionId: request.transactionId, nonce: recorder.nonce(at: now),
                timestamp: now.milliseconds)
        }
        let issued = try recorder.sign(all: eligibilities, userId: customer.userId, app: customer.app,
                                       requestedBy: request.requestedBy, requestId: request.requestId)
        linker?.offer(customer, requestId: request.requestId)
        return zip(issued, decisions).map { IssuedIntroductoryOffer(issued: $0, decision: $1.0, ruleId: $1.1?.ruleId) }
    }

    /// Takes a request of `customer` from the limit: the proven subscription when there is one
    /// (many spellings of one proof, or many user IDs with it, are one customer), else the user.
    private func limit(_ customer: BoundCustomer) throws(SignRefusal) {
        guard let customerLimit else { return }
        let key = customer.provenSubscription.map { "subscription \(customer.app.bundleId) \(customer.environment.rawValue) \($0)" }
            ?? "user \(customer.app.bundleId) \(customer.userId)"
        if let retry = customerLimit.take(key, now: Double(DispatchTime.now().uptimeNanoseconds) / 1e9) {
            throw .rateLimited(limit: customerLimit.rate, retryAfterSeconds: retry)
        }
    }
}
