import Foundation
import OfferSignerCore
import OfferSignerStore

/// The Retention Messaging use case: verifies the App Store's real-time request, finds the
/// user through the subscription's `originalTransactionId` (the request, signed by the App
/// Store, proves the subscription, so its own history counts even without an app account
/// token), tries the app's retention rules
/// in priority order and answers with the first that answers — signing its promotional offer
/// through `OfferIssuer` (same eligibility, dates, quota and log as `/v1/offers/sign`, source
/// `retention`) — and records the answer under the request's `requestIdentifier`, so that a
/// repeated request gets the same answer, never a second signature. A subscription whose
/// customer's consent was rescinded gets the empty answer (Apple's default). No HTTP here.
public struct RetentionResponder: Sendable {
    let verification: AppStoreVerification
    let rules: any RuleStore
    let offers: any OfferStore
    let history: any SubscriptionHistoryStore
    let requests: any RetentionRequestStore
    let issuer: OfferIssuer
    let clock: WallClock
    let logger: Logger
    /// How old (by its `signedDate`) a request may be; older ones are refused as replays.
    let maxRequestAge: Int
    /// How far ahead of this clock a request's `signedDate` may be.
    static let maxClockAhead: Int64 = 60_000
    /// Five minutes: Apple waits only briefly for an answer, so an older request is no live one.
    public static let defaultMaxRequestAge = 300
    /// Apple's approval of the retention messages: a rule whose message Apple has not approved
    /// is passed over (nil, or a state not known: every rule is tried, as before).
    let messageStates: RetentionMessageStates?
    /// Requests being answered now, by identifier (one instance per router: share it).
    private let inFlight = SingleFlight<RetentionAnswer, RetentionRefusal>()

    public init(verification: AppStoreVerification, rules: any RuleStore, offers: any OfferStore,
                history: any SubscriptionHistoryStore, requests: any RetentionRequestStore, issuer: OfferIssuer, clock: WallClock,
                logger: Logger, maxRequestAge: Int = RetentionResponder.defaultMaxRequestAge,
                messageStates: RetentionMessageStates? = nil) {
        self.maxRequestAge = maxRequestAge
        self.messageStates = messageStates
        self.verification = verification
        self.rules = rules
        self.offers = offers
        self.history = history
        self.requests = requests
        self.issuer = issuer
        self.clock = clock
        self.logger = logger
    }

    /// Verifies `signedPayload` and answers it (again, when it was answered before).
    public func respond(to signedPayload: String) throws(RetentionRefusal) -> RetentionAnswer {
        let request: VerifiedRealtimeRequest
        do {
            request = try verification.current.verifyRealtimeRequest(signedPayload)
        } catch {
            throw .invalidSignedData(error)
        }
        let identifier = request.payload.requestIdentifier.lowercased()
        let now = clock.now.milliseconds
        let signed = request.payload.signedDate
        guard signed >= now - Int64(maxRequestAge) * 1000, signed <= now + Self.maxClockAhead else {
            throw .outsideWindow(signedDate: signed, maxAgeSeconds: maxRequestAge)
        }
        let key = [request.bundleId, request.environment.rawValue, identifier].joined(separator: "\u{0}")
        return try inFlight.run(key) { () throws(RetentionRefusal) in try answer(request, identifier: identifier) }
    }

    private func answer(_ request: VerifiedRealtimeRequest, identifier: String) throws(RetentionRefusal) -> RetentionAnswer {
        let recorded: AnsweredRetentionRequest?
        do {
            recorded = try requests.answered(bundleId: request.bundleId, environment: request.environment, requestIdentifier: identifier)
        } catch {
            throw .store(error)
        }
        if let recorded {
            guard recorded.originalTransactionId == request.payload.originalTransactionId else {
                throw .identifierReused(requestIdentifier: identifier)
            }
            return RetentionAnswer(repeating: recorded)
        }

        let payload = request.payload
        let userId: String
        let candidates: [RetentionRule]
        let rescinded: ConsentEvent?
        do {
            let subscription = try history.history(originalTransactionId: payload.originalTransactionId,
                                                   environment: request.environment, bundleId: request.bundleId)
            userId = Self.user(of: subscription)
            rescinded = try issuer.consent.rescinded(history: subscription, environment: request.environment)
            candidates = rescinded != nil ? [] : RetentionRule.inPriorityOrder(try rules.rules(RetentionRule.self, bundleId: request.bundleId)
                .map(\.rule).filter { $0.applies(productId: payload.productId, locale: payload.userLocale) })
        } catch {
            throw .store(error)
        }
        if let rescinded {
            logger.log(.info, "retention request answered with Apple's default: consent rescinded", [
                "requestIdentifier": .string(identifier), "appTransactionId": .string(rescinded.appTransactionId),
            ])
        }
        var answer = RetentionAnswer.noMessage
        for rule in candidates {
            if let state = unapproved(rule.messageIdentifier, request) {
                note(rule, "its message '\(rule.messageIdentifier)' is \(state) at Apple", request, identifier, level: .info)
                continue
            }
            if let chosen = try self.answer(by: rule, request, identifier: identifier, userId: userId) {
                if chosen.kind == .message, let fallback = rule.fallbackMessageIdentifier, rule.offerId != nil,
                   let state = unapproved(fallback, request) {
                    note(rule, "its fallback message '\(fallback)' is \(state) at Apple", request, identifier, level: .info)
                    continue
                }
                answer = chosen
                break
            }
        }
        return record(answer, for: request, identifier: identifier, userId: userId)
    }

    /// The user of a subscription: the app account token (lowercased) of its latest
    /// transaction that carries one; empty when none does (or the subscription is unknown).
    static func user(of subscription: UserHistory) -> String {
        subscription.transactions.filter { $0.appAccountToken != nil }
            .max { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }?
            .appAccountToken?.lowercased() ?? ""
    }

    /// What `rule` answers, or nil when it passes the request on to the next rule.
    private func answer(by rule: RetentionRule, _ request: VerifiedRealtimeRequest, identifier: String,
                        userId: String) throws(RetentionRefusal) -> RetentionAnswer? {
        guard let offerId = rule.offerId else {
            if let product = rule.alternateProductId {
                return .alternateProduct(rule.messageIdentifier, productId: product, ruleId: rule.ruleId)
            }
            return .message(rule.messageIdentifier, ruleId: rule.ruleId)
        }
        let fallback = rule.fallbackMessageIdentifier.map { RetentionAnswer.message($0, ruleId: rule.ruleId) }
        let payload = request.payload
        let product: String
        do {
            // The offer on the subscription looked at, or (another tier) on the offer's first product.
            guard let offer = try offers.offer(bundleId: request.bundleId, offerId: offerId)?.rule else {
                note(rule, "its offer '\(offerId)' is not configured", request, identifier, level: .warning)
                return fallback
            }
            product = offer.productIds.contains(payload.productId) ? payload.productId : offer.productIds[0]
        } catch {
            throw .store(error)
        }
        do {
            let issued = try issuer.issue(IssueRequest(
                retentionOfferFor: request.bundleId, productId: product, offerId: offerId, userId: userId,
                originalTransactionId: payload.originalTransactionId, environment: request.environment,
                requestIdentifier: identifier))
            return .promotionalOffer(rule.messageIdentifier, issued: issued, ruleId: rule.ruleId)
        } catch {
            switch error {
            case .notEligible(let decision):
                note(rule, "not eligible for '\(offerId)' (failed: \(decision.reasons.map(\.criterion).joined(separator: ", ")))",
                     request, identifier)
            case .quotaExceeded(_, let maxCount, _):
                note(rule, "the user has had \(maxCount) signatures of '\(offerId)' in 24 hours", request, identifier)
            case .rateLimited:
                note(rule, "the customer is over the request limit", request, identifier)
            case .consentRescinded:
                // Consent was withdrawn while the rules were tried: Apple's default, nothing else.
                return .noMessage
            case .offerNotFound, .productNotInOffer, .offerNotAtApple, .unknownProduct, .jwsUnavailable, .unknownApp, .appNotNamed,
                 .environmentNotAccepted, .proofRequired, .proofMismatch, .invalidProof:
                note(rule, "its offer cannot be signed: \(error)", request, identifier, level: .warning)
            case .logUnavailable(let reason):
                throw .logUnavailable(reason: reason)
            case .chainRegressed(let mismatch):
                throw .logUnavailable(reason: SignatureLogError.endMismatch(mismatch).description)
            case .signingKeyUnavailable(let reason):
                throw .signingKeyUnavailable(reason: reason)
            case .storeUnavailable(let reason):
                throw .storeUnavailable(reason: reason)
            case .internalFailure(let cause):
                throw .internalFailure(cause)
            }
            return fallback
        }
    }

    /// Records the answer and returns the one to give: the answer recorded first when another
    /// instance answered the same request at the same moment, else `answer`. A failure is
    /// logged, not answered: the offer is already signed and logged, and the customer should see it.
    private func record(_ answer: RetentionAnswer, for request: VerifiedRealtimeRequest, identifier: String,
                        userId: String) -> RetentionAnswer {
        let payload = request.payload
        do {
            let kept = try requests.record(AnsweredRetentionRequest(
                requestIdentifier: identifier, bundleId: request.bundleId, environment: request.environment,
                originalTransactionId: payload.originalTransactionId, productId: payload.productId, userLocale: payload.userLocale,
                userId: userId.isEmpty ? nil : userId, ruleId: answer.ruleId, answer: answer.kind, signatureNonce: answer.signatureNonce,
                responseJSON: answer.json, signedDate: payload.signedDate, answeredAt: clock.now))
            return kept.responseJSON == answer.json ? answer : RetentionAnswer(repeating: kept)
        } catch {
            logger.log(.error, "retention answer not recorded; a repeat of the request will be answered afresh",
                       ["requestIdentifier": .string(identifier), "error": .string("\(error)")])
            return answer
        }
    }

    /// The state of a message Apple is known not to show (`PENDING`, `REJECTED`, `MISSING`);
    /// nil when it is approved or its state is not known.
    private func unapproved(_ messageIdentifier: String, _ request: VerifiedRealtimeRequest) -> String? {
        guard case .notApproved(let state)? = messageStates?.approval(of: messageIdentifier, bundleId: request.bundleId,
                                                                         environment: request.environment.rawValue) else { return nil }
        return state
    }

    /// Logs why `rule` did not answer with its offer.
    private func note(_ rule: RetentionRule, _ why: String, _ request: VerifiedRealtimeRequest, _ identifier: String,
                      level: Logger.Level = .debug) {
        guard logger.isEnabled(level) else { return }
        logger.log(level, "retention rule passed over", [
            "requestIdentifier": .string(identifier), "bundleId": .string(request.bundleId), "ruleId": .string(rule.ruleId),
            "reason": .string(why),
        ])
    }
}
