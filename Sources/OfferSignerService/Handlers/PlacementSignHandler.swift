import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

/// `POST /v1/offers/placement`: the service picks the placement's offer and signs it; the
/// answer is the sign answer with `placement` (and, inside an experiment, `experimentId` and `armId`).
struct PlacementSignHandler {
    let issuer: PlacementIssuer
    let rateLimits: RateLimits

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try RateLimits.check(rateLimits.signPerAPIKey, context.callerName, what: "signing requests for this API key")
        let body = try PlacementSignRequest.read(request)
        try body.validate()
        let placed = try issuer.issue(body.placementRequest(context))
        return HTTPResponse.json(encoded: SignResponse(placed.issued).body(placement: placed.placementId, experimentId: placed.experimentId,
                                                                             armId: placed.armId))
    }
}

extension PlacementSignHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/offers/placement", policy: .roles([.client]), handler: handle(_:_:))
    }
}
