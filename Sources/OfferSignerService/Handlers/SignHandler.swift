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
        let body = try SignRequest.read(request)
        try body.validate()
        let issued = try issuer.issue(body.issueRequest(offerId: body.offerId, context))
        return HTTPResponse.json(encoded: SignResponse(issued).body)
    }
}

extension SignHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/offers/sign", policy: .roles([.client]), handler: handle(_:_:))
    }
}
