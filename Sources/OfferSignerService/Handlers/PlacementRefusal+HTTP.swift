import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

extension PlacementRefusal: HTTPResponseError {
    /// The answer of `POST /v1/offers/placement`: a refusal of the sign pipeline is answered as
    /// `POST /v1/offers/sign` answers it.
    public var problem: HTTPProblem {
        switch self {
        case .placementNotFound(let placementId, let bundleId):
            HTTPProblem(status: 404, code: "placement_not_found", title: "Placement not found",
                        detail: "no placement '\(placementId)' is configured (and enabled) for \(bundleId)")
        case .noEligibleOffer(let placementId, let offers):
            HTTPProblem(status: 403, code: "not_eligible", title: "Not eligible",
                        detail: "the user is not eligible for any offer of placement '\(placementId)' ("
                            + offers.map { "\($0.offerId): \($0.reasons.map(\.criterion).joined(separator: ", "))" }.joined(separator: "; ") + ")",
                        extensions: ["placement": placementId, "offers": offers, "reasons": offers.flatMap(\.reasons)])
        case .experimentControl(let placementId, let experimentId, let armId):
            HTTPProblem(status: 403, code: "experiment_control", title: "No offer for this arm",
                        detail: "the user is in arm '\(armId)' of experiment '\(experimentId)' on placement '\(placementId)', which shows no offer",
                        extensions: ["placement": placementId, "experimentId": experimentId, "armId": armId])
        case .armNotEligible(let placementId, let experimentId, let armId, let offer):
            HTTPProblem(status: 403, code: "not_eligible", title: "Not eligible",
                        detail: "the user is in arm '\(armId)' of experiment '\(experimentId)' and not eligible for its offer '\(offer.offerId)' ("
                            + offer.reasons.map(\.criterion).joined(separator: ", ") + ")",
                        extensions: ["placement": placementId, "experimentId": experimentId, "armId": armId, "offers": [offer],
                                     "reasons": offer.reasons])
        case .refused(let refusal, _):
            refusal.problem
        }
    }

    public var unexpectedCause: (any Error)? {
        guard case .refused(let refusal, _) = self else { return nil }
        return refusal.unexpectedCause
    }
}
