import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/offers/introductory-eligibility`: decode, decide and sign through
/// `OfferIssuer`, answer `{"allowIntroductoryOffer", "jws", "nonce", "keyIdentifier",
/// "reasons"}` for one `productId`, or `{"items": [...]}` of those, in request order, for a
/// store page's `productIds`. The rate limits are those of signing: a page takes one request
/// of the per-user limit (one store page drawn) and one per product of the per-key limit
/// (each product is a signature).
struct IntroductoryEligibilityHandler {
    let issuer: OfferIssuer
    let rateLimits: RateLimits

    struct Response: Encodable {
        let allowIntroductoryOffer: Bool
        let jws: String
        let nonce: String
        let keyIdentifier: String
        let reasons: [EligibilityReason]

        init(_ answer: IssuedIntroductoryOffer) {
            let eligibility = answer.issued.eligibility
            allowIntroductoryOffer = eligibility.allowIntroductoryOffer
            jws = answer.issued.jws
            nonce = eligibility.nonce
            keyIdentifier = eligibility.keyIdentifier
            reasons = answer.decision.reasons
        }
    }

    /// The answer to a store page: one element per product, in request order.
    struct PageResponse: Encodable {
        let items: [Response]
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let body = try request.decodeJSON(IntroductoryEligibilityRequest.self)
        try body.validate()
        try RateLimits.check(rateLimits.signPerAPIKey, context.callerName, cost: body.productIds?.count ?? 1,
                             what: "signing requests for this API key")
        let trust = context.principal?.trust ?? .app  // the route needs a key; none is believed least
        if let productIds = body.productIds {
            let answers = try issuer.issue(IntroductoryOfferPageRequest(
                bundleId: body.bundleId, productIds: productIds, userId: body.userId, transactionId: body.transactionId,
                environment: body.environment, requestedBy: context.callerName, requestId: context.requestId, proof: body.proof,
                callerTrust: trust))
            return try HTTPResponse.json(PageResponse(items: answers.map(Response.init)))
        }
        let answer = try issuer.issue(IntroductoryOfferRequest(
            bundleId: body.bundleId, productId: body.productId ?? "", userId: body.userId, transactionId: body.transactionId,
            environment: body.environment, requestedBy: context.callerName, requestId: context.requestId, proof: body.proof,
            callerTrust: trust))
        return try HTTPResponse.json(Response(answer))
    }
}

extension IntroductoryEligibilityHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/offers/introductory-eligibility", policy: .roles([.client]), handler: handle(_:_:))
    }
}
