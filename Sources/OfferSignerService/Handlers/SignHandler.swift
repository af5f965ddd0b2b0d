import Foundation
import OfferSignerCore
import OfferSignerHTTP

/// `POST /v1/offers/sign`: decode, issue through `OfferIssuer`, answer.
struct SignHandler {
    let dependencies: ServiceDependencies
    let issuer: OfferIssuer

    init(dependencies: ServiceDependencies) {
        self.dependencies = dependencies
        self.issuer = OfferIssuer(dependencies: dependencies)
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try RateLimits.check(dependencies.rateLimits.signPerAPIKey, context.callerName, what: "signing requests for this API key")
        let body = try SignRequest(plainJSON: request.body) ?? request.decodeJSON(SignRequest.self)
        try body.validate()
        try RateLimits.check(dependencies.rateLimits.signPerUser, body.rateLimitSubject, what: "signing requests for this user")
        let issued = try issuer.issue(IssueRequest(
            bundleId: body.bundleId, productId: body.productId, offerId: body.offerId, userId: body.userId, format: body.format,
            transactionId: body.transactionId, environment: body.environment, requestedBy: context.callerName,
            requestId: context.requestId, proof: body.proof,
            callerTrust: context.principal?.trust ?? .app))  // the route needs a key; none is believed least
        return HTTPResponse.json(encoded: SignResponse(issued).json)
    }
}
