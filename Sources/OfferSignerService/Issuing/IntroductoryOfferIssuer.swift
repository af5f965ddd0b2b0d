import Foundation
import OfferSignerCore
import OfferSignerStore

/// The introductory-offer eligibility use case: decides from the stored history (and the
/// introductory-offer rule of the product or its group, if any) whether the user gets the
/// product's introductory offer, signs that answer — allowed or not, since StoreKit takes a
/// signed `false` to withhold the offer — with the app's active key, and returns only after
/// its record is durably in the signature log. Proof of the customer is demanded, verified and
/// bound as for signing (a key shipped in apps must send the customer's signed transaction).
/// No HTTP here.
public struct IntroductoryOfferIssuer: Sendable {
    let keyRing: KeyRing
    let rules: any RuleStore
    let history: any SubscriptionHistoryStore
    let signatures: any SignatureLog
    let appStore: AppStoreVerification
    let acceptedEnvironments: Set<String>
    let clock: WallClock
    let metrics: Metrics
    let logger: Logger

    public init(dependencies: ServiceDependencies) {
        keyRing = dependencies.keyRing
        rules = dependencies.rules
        history = dependencies.history
        signatures = dependencies.signatures
        appStore = dependencies.appStore
        acceptedEnvironments = dependencies.appStore.acceptedEnvironments
        clock = dependencies.clock
        metrics = dependencies.metrics
        logger = dependencies.logger
    }

    /// Decides and signs `request`'s eligibility, or says why no signature was made.
    public func issue(_ request: IntroductoryOfferRequest) throws(SignRefusal) -> IssuedIntroductoryOffer {
        let userId = request.userId.lowercased()
        guard let app = keyRing.current.app(bundleId: request.bundleId) else {
            throw request.bundleId.map { .unknownApp(bundleId: $0) } ?? .appNotNamed
        }
        guard acceptedEnvironments.contains(request.environment.rawValue) else {
            throw .environmentNotAccepted(request.environment, accepted: acceptedEnvironments)
        }
        let proven = try provenSubscription(for: request, userId: userId, bundleId: app.bundleId)
        let now = clock.now
        let decision: EligibilityDecision
        let rule: IntroductoryOfferRule?
        do {
            let check = EligibilityCheck(history: history)
            let userHistory = try check.history(userId: userId, bundleId: app.bundleId, provenSubscription: proven,
                                                environment: request.environment)
            let group = try check.group(
                of: [request.productId], bundleId: app.bundleId, environment: request.environment, userHistory: userHistory)
            rule = IntroductoryOfferRule.deciding(try rules.rules(IntroductoryOfferRule.self, bundleId: app.bundleId).map(\.rule),
                                                  productId: request.productId, group: group)
            let facts = group.flatMap { userHistory.facts(group: $0, environment: request.environment, now: now) }
            let last = group.flatMap {
                SubscriptionTransaction.lastIntroductoryOffer(in: userHistory.transactions, group: $0, environment: request.environment)
            }
            decision = IntroductoryOfferEvaluator.evaluate(facts: facts, lastIntroductoryOffer: last, rule: rule, now: now)
        } catch {
            throw .store(error)
        }

        let eligibility = IntroductoryOfferEligibility(
            bundleId: app.bundleId, keyIdentifier: app.signer.keyIdentifier, productId: request.productId,
            allowIntroductoryOffer: decision.eligible, transactionId: request.transactionId,
            nonce: SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID(now: now)), timestamp: now.milliseconds)
        let issued: IssuedIntroductoryOfferEligibility
        do {
            issued = try app.signer.issue(eligibility)
        } catch {
            if case .missingIssuerId = error { throw .jwsUnavailable(bundleId: app.bundleId) }
            throw .internalFailure(error)
        }
        let record = SignatureRecord(issued, userId: userId, apiKeyName: request.requestedBy, requestId: request.requestId,
                                     recordedAt: clock.now.milliseconds)
        do {
            _ = try signatures.append(record, quota: nil)
        } catch {
            let reason = error.description
            logger.log(.error, "signature log append failed; no signature issued",
                       ["requestId": .string(record.requestId), "reason": .string(reason)])
            throw .logUnavailable(reason: reason)
        }
        metrics.recordSignature(bundleId: app.bundleId, offerId: "", format: SignatureFormat.introductoryOfferEligibility.rawValue)
        return IssuedIntroductoryOffer(issued: issued, decision: decision, ruleId: rule?.ruleId)
    }
}
