import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension SignRefusal: HTTPResponseError {
    /// The answer of the sign endpoint (an internal failure: see `unexpectedCause`).
    public var problem: HTTPProblem {
        switch self {
        case .unknownApp(let bundleId):
            .notFound("no app with bundleId '\(bundleId)' is configured")
        case .appNotNamed:
            .invalidRequest("'bundleId' is required when more than one app is configured")
        case .environmentNotAccepted(let environment, let accepted):
            EnvironmentSelection.notAccepted(environment, accepted: accepted)
        case .offerNotFound(let offerId, let bundleId):
            .notFound("no offer '\(offerId)' is configured for \(bundleId)")
        case .productNotInOffer(let offerId, let productId):
            .notFound("offer '\(offerId)' is not for product '\(productId)'")
        case .offerNotAtApple(let offerId, let gap, let syncedAt):
            HTTPProblem(status: 409, code: "offer_not_at_apple", title: "Offer not at App Store Connect",
                        detail: gap.message(offerId: offerId) + " (catalog synced \(RFC3339.string(from: syncedAt))): "
                            + "StoreKit would refuse this signature",
                        extensions: ["productId": gap.productId, "promotionalOffers": gap.promotionalOffers,
                                     "catalogSyncedAt": RFC3339.string(from: syncedAt)])
        case .unknownProduct(let productId, let bundleId):
            .notFound("product '\(productId)' is not known for \(bundleId): no verified transaction of the environment and no rule names it")
        case .proofRequired(.appKey):
            HTTPProblem(status: 403, code: "proof_required", title: "Proof required",
                        detail: "this API key is shipped in apps: send the customer's signedTransaction (StoreKit's Transaction.jwsRepresentation)")
        case .proofRequired(.emptyUserId):
            HTTPProblem(status: 403, code: "proof_required", title: "Proof required",
                        detail: "an empty userId needs the customer's signedTransaction (StoreKit's Transaction.jwsRepresentation)")
        case .proofMismatch(let mismatch):
            HTTPProblem(status: 403, code: "proof_mismatch", title: "Proof does not match the request", detail: mismatch.description)
        case .invalidProof(let field, let refusal):
            HTTPProblem(status: 400, code: "invalid_signed_data", title: "Invalid signed data",
                        detail: "\(field.rawValue): \(refusal.description)")
        case .notEligible(let decision):
            HTTPProblem(status: 403, code: "not_eligible", title: "Not eligible",
                        detail: "the user is not eligible for this offer (failed: \(decision.reasons.map(\.criterion).joined(separator: ", ")))",
                        extensions: ["reasons": decision.reasons])
        case .consentRescinded(let appTransactionId, let since):
            HTTPProblem(status: 403, code: "consent_rescinded", title: "Consent rescinded",
                        detail: "consent for this customer's use of the app was withdrawn on \(RFC3339.string(from: since)) "
                            + "(RESCIND_CONSENT for app transaction \(appTransactionId)); no offer is signed for them")
        case .jwsUnavailable(let bundleId):
            .invalidRequest("the jws format is not available: \(bundleId) has no issuerId in the keys file")
        case .rateLimited(let limit, let retryAfterSeconds):
            .rateLimited("too many signing requests for this user (limit \(limit)); retry in \(retryAfterSeconds) s",
                         retryAfterSeconds: retryAfterSeconds)
        case .quotaExceeded(let offerId, let maxCount, let retryAfterSeconds):
            .rateLimited("the user has had \(maxCount) signatures of offer '\(offerId)' in the last 24 hours",
                         retryAfterSeconds: retryAfterSeconds)
        case .logUnavailable:
            .unavailable("the signature could not be recorded, so none was issued; retry later",
                         retryAfterSeconds: DatabaseUnavailable.retryAfterSeconds)
        case .chainRegressed(let mismatch):
            HTTPProblem(status: 503, code: "chain_regressed", title: "Signature log went backwards",
                        detail: "the signature log ends at entry \(mismatch.last.sequence) but entries up to "
                            + "\(mismatch.lostThrough?.sequence ?? mismatch.last.sequence) were committed (a failover or a restore lost them); "
                            + "no signature is issued until an operator accepts the loss; retry later",
                        headers: ["Retry-After": String(DatabaseUnavailable.retryAfterSeconds)])
        case .signingKeyUnavailable:
            SigningKeyUnavailable.problem
        case .storeUnavailable:
            .unavailable("the database is unavailable, so no signature was issued; retry later",
                         retryAfterSeconds: DatabaseUnavailable.retryAfterSeconds)
        case .internalFailure:
            .internalError(requestId: "")
        }
    }

    /// An internal failure is reported and answered like any unexpected error.
    public var unexpectedCause: (any Error)? {
        if case .internalFailure(let cause) = self { return cause }
        return nil
    }
}
