import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/offers/sign`: decode, issue through `OfferIssuer`, answer.
struct SignHandler {
    let issuer: OfferIssuer
    let rateLimits: RateLimits


    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try RateLimits.check(rateLimits.signPerAPIKey, context.callerName, what: "signing requests for this API key")
        let body = try SignRequest(plainJSON: request.body) ?? request.decodeJSON(SignRequest.self)
        try body.validate()
        let issued = try issuer.issue(IssueRequest(
            bundleId: body.bundleId, productId: body.productId, offerId: body.offerId, userId: body.userId, format: body.format,
            transactionId: body.transactionId, environment: body.environment, requestedBy: context.callerName,
            requestId: context.requestId, proof: body.proof,
            callerTrust: context.principal?.trust ?? .app))  // the route needs a key; none is believed least
        return HTTPResponse.json(encoded: SignResponse(issued).json)
    }
}

extension SignHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/offers/sign", policy: .roles([.client]), handler: handle(_:_:))
    }
}
