import Foundation
import OfferSignerCore
import OfferSignerHTTP

/// `POST /v1/admin/offers/{offerId}/simulate`: how many known users of the offer's app are
/// eligible now, with a sample of up to 20 of them.
struct SimulateHandler {
    let dependencies: ServiceDependencies

    struct Result: Encodable {
        let offerId: String
        let known: Int
        let eligible: Int
        let sample: [String]
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offerId = try context.parameters.require("offerId")
        guard let offer = try dependencies.offers.offer(id: offerId) else { throw HTTPProblem.notFound("no offer '\(offerId)'") }
        let rule = offer.rule
        let now = dependencies.clock.now
        let check = EligibilityCheck(history: dependencies.history)
        var known = 0
        var eligible = 0
        var sample: [String] = []
        var after = ""
        while true {
            let users = try dependencies.history.knownUsers(bundleId: rule.bundleId, afterUserId: after, limit: 1000)
            guard let last = users.last else { break }
            for user in users {
                known += 1
                let decision = try check.decide(userId: user, rule: rule, productId: rule.productIds[0], now: now)
                if decision.eligible {
                    eligible += 1
                    if sample.count < 20 { sample.append(user) }
                }
            }
            after = last
        }
        return try HTTPResponse.json(Result(offerId: offerId, known: known, eligible: eligible, sample: sample))
    }
}
