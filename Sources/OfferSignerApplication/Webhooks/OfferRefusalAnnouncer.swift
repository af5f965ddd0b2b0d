import Foundation
import OfferSignerCore
import OfferSignerStore

/// Writes `offer.refused` into the webhooks' outbox when a promotional offer is refused to a
/// customer, before the refusal is answered, and only while an enabled webhook of the app
/// subscribes to it: otherwise a refusal costs one lock-free read and nothing else.
///
/// A refusal has no write of its own to ride in, so its event is committed in a transaction
/// of its own; when that commit fails the refusal is answered as the store's failure (503 when
/// the database cannot be reached), never as a refusal whose event was lost.
///
/// What counts is a decision on a bound customer (the app, the environment and the user are
/// known; any proof verified) about a configured offer: not eligible (the rule's criteria, or
/// `holdout`), consent rescinded, over the offer's quota, and for placements no offer
/// eligible, the experiment arm's offer refused, or the arm a no-offer control. Not counted:
/// what the caller got wrong or could not prove (authentication, a malformed body, an unknown
/// app, offer, product or placement, a proof missing, mismatched or invalid), the
/// per-customer request limit (a flood is not news), an offer missing at App Store Connect
/// (configuration; counted in a metric), and the service's own faults (the log, the signing
/// key, the database: metrics and alerts cover them).
struct OfferRefusalAnnouncer: Sendable {
    let webhooks: (any WebhookStore)?
    let clock: WallClock

    /// The refused request, as the event describes it.
    struct Context {
        var request: IssueRequest
        var customer: BoundCustomer
        var placementId: String? = nil
        var experimentId: String? = nil
        var armId: String? = nil
    }

    /// Announces `refusal` of `request`'s offer if it counts and is subscribed; returns what to
    /// throw: the refusal, or the store's failure when its event could not be committed.
    func announced(_ refusal: SignRefusal, _ request: IssueRequest, _ customer: BoundCustomer) -> SignRefusal {
        guard subscribed(customer), let counted = Self.counted(refusal, offerId: request.offerId) else { return refusal }
        do {
            try write(code: counted.code, reasons: counted.reasons, offerId: request.offerId, Context(request: request, customer: customer))
        } catch {
            return .store(error)
        }
        return refusal
    }

    /// Announces a placement's `refusal` if it counts and is subscribed; returns what to throw.
    func announced(_ refusal: PlacementRefusal, _ request: PlacementRequest, _ customer: BoundCustomer) -> PlacementRefusal {
        guard subscribed(customer) else { return refusal }
        var context = Context(request: request.offer, customer: customer, placementId: request.placementId)
        var offerId: String?
        let counted: (code: String, reasons: [JSONValue])
        switch refusal {
        case .noEligibleOffer(_, let offers):
            counted = ("not_eligible", offers.flatMap { offer in offer.reasons.map { Self.reason($0, offerId: offer.offerId) } })
        case .armNotEligible(_, let experimentId, let armId, let offer):
            context.experimentId = experimentId
            context.armId = armId
            offerId = offer.offerId
            counted = ("not_eligible", offer.reasons.map { Self.reason($0, offerId: offer.offerId) })
        case .experimentControl(_, let experimentId, let armId):
            context.experimentId = experimentId
            context.armId = armId
            counted = ("experiment_control", [Self.reason(
                criterion: "experimentArm", required: .string("an arm with an offer"), actual: .string(armId),
                message: "The user's arm '\(armId)' of experiment '\(experimentId)' shows no offer.", offerId: nil)])
        case .refused(let sign, let refusedOffer):
            // Consent is checked before any offer of the placement; a holdout names the offer the
            // user is held out of, the quota its offer.
            offerId = refusedOffer
            if case .quotaExceeded(let id, _, _) = sign { offerId = id }
            guard let signCounted = Self.counted(sign, offerId: offerId) else { return refusal }
            counted = signCounted
        case .placementNotFound:
            return refusal
        }
        do {
            try write(code: counted.code, reasons: counted.reasons, offerId: offerId, context)
        } catch {
            return .refused(.store(error))
        }
        return refusal
    }

    private func subscribed(_ customer: BoundCustomer) -> Bool {
        webhooks?.isSubscribed(.offerRefused, bundleId: customer.app.bundleId) == true
    }

    /// The event's code and reasons of a sign refusal that counts; nil for one that does not.
    static func counted(_ refusal: SignRefusal, offerId: String?) -> (code: String, reasons: [JSONValue])? {
        switch refusal {
        case .notEligible(let decision):
            ("not_eligible", decision.reasons.map { reason($0, offerId: offerId) })
        case .consentRescinded(let appTransactionId, let since):
            ("consent_rescinded", [reason(.consentRescinded(at: since, appTransactionId: appTransactionId), offerId: offerId)])
        case .quotaExceeded(let quotaOffer, let maxCount, _):
            ("quota_exceeded", [reason(criterion: "maxSignaturesPerUserPerDay", required: .int(maxCount), actual: .int(maxCount),
                                       message: "The user has had \(maxCount) signatures of this offer in the last 24 hours.",
                                       offerId: quotaOffer)])
        default:
            nil
        }
    }

    /// A reason as the event lists it: the offer it is about, then the eligibility reason's members.
    static func reason(_ reason: EligibilityReason, offerId: String?) -> JSONValue {
        Self.reason(criterion: reason.criterion, required: reason.required, actual: reason.actual, message: reason.message, offerId: offerId)
    }

    static func reason(criterion: String, required: JSONValue, actual: JSONValue, message: String, offerId: String?) -> JSONValue {
        .dictionary(["offerId": offerId.map(JSONValue.string) ?? .null, "criterion": .string(criterion),
                     "required": required, "actual": actual, "message": .string(message)])
    }

    private func write(code: String, reasons: [JSONValue], offerId: String?, _ context: Context) throws {
        guard let webhooks else { return }
        let request = context.request, customer = context.customer
        let transactionId = customer.provenSubscription ?? request.transactionId
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let data: [String: JSONValue] = [
            "code": .string(code), "productId": .string(request.productId), "offerId": optional(offerId),
            "placementId": optional(context.placementId), "experimentId": optional(context.experimentId), "armId": optional(context.armId),
            "userId": .string(customer.userId), "transactionId": optional(transactionId), "reasons": .array(reasons),
            "source": .string(request.source.rawValue), "apiKeyName": .string(request.requestedBy), "requestId": .string(request.requestId),
        ]
        let now = clock.now
        let event = WebhookEvent(type: .offerRefused, occurredAt: now, bundleId: customer.app.bundleId,
                                 environment: customer.environment.rawValue,
                                 orderingKey: customer.userId.isEmpty ? "transaction:" + (transactionId ?? "") : customer.userId, data: data)
        try webhooks.enqueue([event], at: now)
    }
}
