import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/offers/introductory-eligibility`: decode, decide and sign through
/// `IntroductoryOfferIssuer`, answer `{"allowIntroductoryOffer", "jws", "nonce",
/// "keyIdentifier", "reasons"}`. The rate limits are those of signing.
struct IntroductoryEligibilityHandler {
    let issuer: OfferIssuer
    let rateLimits: RateLimits


    struct Response: Encodable {
        let allowIntroductoryOffer: Bool
        let jws: String
        let nonce: String
        let keyIdentifier: String
        let reasons: [EligibilityReason]
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try RateLimits.check(rateLimits.signPerAPIKey, context.callerName, what: "signing requests for this API key")
        let body = try request.decodeJSON(IntroductoryEligibilityRequest.self)
        try body.validate()
        let answer = try issuer.issue(IntroductoryOfferRequest(
            bundleId: body.bundleId, productId: body.productId, userId: body.userId, transactionId: body.transactionId,
            environment: body.environment, requestedBy: context.callerName, requestId: context.requestId, proof: body.proof,
            callerTrust: context.principal?.trust ?? .app))  // the route needs a key; none is believed least
        let eligibility = answer.issued.eligibility
        return try HTTPResponse.json(Response(allowIntroductoryOffer: eligibility.allowIntroductoryOffer, jws: answer.issued.jws,
                                              nonce: eligibility.nonce, keyIdentifier: eligibility.keyIdentifier,
                                              reasons: answer.decision.reasons))
    }
}

extension IntroductoryEligibilityHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/offers/introductory-eligibility", policy: .roles([.client]), handler: handle(_:_:))
    }
}
