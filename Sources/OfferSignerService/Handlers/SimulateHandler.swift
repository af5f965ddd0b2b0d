import Foundation
import OfferSignerCore
import OfferSignerHTTP

/// `POST /v1/admin/offers/{offerId}/simulate?bundleId=&environment=`: how many known users
/// of the offer's app are eligible now, with a sample of up to 20 of them. Users and facts
/// come from one environment's history (Production unless `?environment=Sandbox`).
struct SimulateHandler {
    let dependencies: ServiceDependencies

    struct Result: Encodable {
        let bundleId: String
        let offerId: String
        let environment: AppStoreEnvironment
        let known: Int
        let eligible: Int
        let sample: [String]
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let rule = try OfferAdminHandler.stored(request, context, dependencies).rule
        let environment = try EnvironmentSelection.environment(request.query["environment"],
                                                               accepted: dependencies.appStore.acceptedEnvironments,
                                                               source: "?environment=")
        let now = dependencies.clock.now
        let check = EligibilityCheck(history: dependencies.history)
        var known = 0
        var eligible = 0
        var sample: [String] = []
        var after = ""
        while true {
            let users = try dependencies.history.knownUsers(bundleId: rule.bundleId, environment: environment,
                                                            afterUserId: after, limit: 1000)
            guard let last = users.last else { break }
            for user in users {
                known += 1
                let decision = try check.decide(userId: user, rule: rule, productId: rule.productIds[0],
                                                environment: environment, now: now)
                if decision.eligible {
                    eligible += 1
                    if sample.count < 20 { sample.append(user) }
                }
            }
            after = last
        }
        return try HTTPResponse.json(Result(bundleId: rule.bundleId, offerId: rule.offerId, environment: environment,
                                            known: known, eligible: eligible, sample: sample))
    }
}
