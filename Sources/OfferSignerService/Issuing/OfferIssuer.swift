import Foundation
import OfferSignerCore
import OfferSignerStore

/// The signing use case: finds the app and offer, verifies and binds the customer's proof
/// (demanded of keys shipped in apps), decides the user's eligibility from the stored
/// history, signs with the app's active key and returns only after the signature's record is
/// durably in the log (counted against the offer's daily quota). It knows no HTTP: the sign
/// endpoint, offline tools and the retention endpoint all issue through it. Quotas are the
/// offer's whoever asks: retention offers count against the same quota.
///
/// With an `UnknownUserLookup`, a user with no known history whose request names a
/// `transactionId` has that transaction's history fetched (within the lookup's timeout) before
/// the decision; a fetch that fails or runs late leaves the decision to what is known.
public struct OfferIssuer: Sendable {
    let keyRing: KeyRing
    let offers: any OfferStore
    let history: any SubscriptionHistoryStore
    let signatures: any SignatureLog
    let activity: OfferActivity
    /// Verifies the customer's proof.
    let appStore: AppStoreVerification
    /// The environments whose signed data the service accepts, hence keeps history of.
    let acceptedEnvironments: Set<String>
    let clock: WallClock
    let metrics: Metrics
    let logger: Logger
    /// Fetches the history of users with none known, when `OFFER_SIGNER_FETCH_UNKNOWN_USERS` is on.
    let unknownUsers: UnknownUserLookup?

    public init(dependencies: ServiceDependencies) {
        keyRing = dependencies.keyRing
        offers = dependencies.offers
        history = dependencies.history
        signatures = dependencies.signatures
        activity = dependencies.activity
        appStore = dependencies.appStore
        acceptedEnvironments = dependencies.appStore.acceptedEnvironments
        clock = dependencies.clock
        metrics = dependencies.metrics
        logger = dependencies.logger
        unknownUsers = dependencies.unknownUserLookup
    }

    /// Signs `request` when the user is eligible, or says why not.
    public func issue(_ request: IssueRequest) throws(SignRefusal) -> IssuedOffer {
        let userId = request.userId.lowercased()
        let configuration = keyRing.current
        guard let app = configuration.app(bundleId: request.bundleId) else {
            throw request.bundleId.map { .unknownApp(bundleId: $0) } ?? .appNotNamed
        }
        guard acceptedEnvironments.contains(request.environment.rawValue) else {
            throw .environmentNotAccepted(request.environment, accepted: acceptedEnvironments)
        }
        // The App Store's own signed request proves a retention offer's subscription.
        let proven: String?
        if let subscription = request.appStoreSubscription {
            proven = subscription
        } else {
            proven = try provenTransaction(for: request, userId: userId, bundleId: app.bundleId)?.originalTransactionId
        }
        let rule = try offer(request.offerId, productId: request.productId, bundleId: app.bundleId)
        let now = clock.now
        let decision: EligibilityDecision
        do {
            let check = EligibilityCheck(history: history)
            var userHistory = try check.history(userId: userId, bundleId: app.bundleId, provenSubscription: proven,
                                                environment: request.environment)
            // A retention request never waits on the App Store Server API: Apple waits only briefly.
            if userHistory.transactions.isEmpty, request.source != .retention, let unknownUsers, let transactionId = request.transactionId,
               unknownUsers.lookUp(bundleId: app.bundleId, transactionId: transactionId) == .fetched {
                userHistory = try check.history(userId: userId, bundleId: app.bundleId, provenSubscription: proven,
                                                environment: request.environment)
            }
            decision = try check.decide(userHistory: userHistory, rule: rule, productId: request.productId,
                                        environment: request.environment, now: now)
        } catch {
            throw .store(error)
        }
        guard decision.eligible else {
            activity.recordRefusal(OfferKey(bundleId: app.bundleId, offerId: rule.offerId), criteria: decision.reasons.map(\.criterion), at: now)
            throw .notEligible(decision)
        }

        let offer = PromotionalOfferRequest(
            bundleId: app.bundleId, keyIdentifier: app.signer.keyIdentifier, productId: request.productId, offerId: rule.offerId,
            appAccountToken: userId, nonce: SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID(now: now)),
            timestamp: now.milliseconds, transactionId: proven ?? request.transactionId)
        let issued: IssuedOffer
        do {
            issued = try app.signer.issue(offer, format: request.format)
        } catch {
            switch error {
            case .missingIssuerId: throw .jwsUnavailable(bundleId: app.bundleId)
            case .notAPromotionalOfferFormat: throw .notAPromotionalOfferFormat(request.format)
            case .openSSL: throw .internalFailure(error)
            }
        }
        let record = SignatureRecord(issued, apiKeyName: request.requestedBy, requestId: request.requestId,
                                     recordedAt: clock.now.milliseconds, source: request.source)
        try appendDurably(record, quota: rule.limits.maxSignaturesPerUserPerDay)
        metrics.recordSignature(bundleId: rule.bundleId, offerId: rule.offerId, format: request.format.rawValue)
        return issued
    }

    /// The enabled-or-not rule of `offerId` in the app, for `productId`.
    private func offer(_ offerId: String, productId: String, bundleId: String) throws(SignRefusal) -> OfferRule {
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
        return rule
    }

    /// Appends the record, within the quota of `maxPerDay` records per user and offer (of the app).
    private func appendDurably(_ record: SignatureRecord, quota maxPerDay: Int?) throws(SignRefusal) {
        do {
            _ = try signatures.append(record, quota: maxPerDay.map { SignatureQuota(maxCount: $0) })
        } catch {
            switch error {
            case .quotaExceeded(let seconds):
                activity.recordRefusal(OfferKey(bundleId: record.bundleId, offerId: record.offerId),
                                       criteria: ["maxSignaturesPerUserPerDay"], at: Date(milliseconds: record.recordedAt))
                throw .quotaExceeded(offerId: record.offerId, maxCount: maxPerDay ?? 0, retryAfterSeconds: seconds)
            case .unavailable(let reason):
                logger.log(.error, "signature log append failed; no signature issued",
                           ["requestId": .string(record.requestId), "reason": .string(reason)])
                throw .logUnavailable(reason: reason)
            case .endMismatch(let mismatch):
                logger.log(.error, "SIGNATURE LOG TAMPERED: it does not end where its last commit recorded it; "
                           + "no signature is issued until an operator restores it from a backup or runs "
                           + "`offer-signer audit accept-truncation` (see README, Audits)",
                           ["requestId": .string(record.requestId), "reason": .string(mismatch.description)])
                throw .logUnavailable(reason: mismatch.description)
            }
        }
    }
}
