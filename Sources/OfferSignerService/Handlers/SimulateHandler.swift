import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/admin/offers/{offerId}/simulate?bundleId=&environment=`: how many known users
/// of the offer's app are eligible now, how many fail each criterion, and a sample of up to
/// 20 eligible users. Users and facts come from one environment's history (Production unless
/// `?environment=Sandbox`). Without a body it judges the stored rule of the app of
/// `?bundleId=`; with a rule as body (the same JSON as `PUT`, validated the same way) it
/// judges that unsaved draft, so marketing sees a change's effect before making it.
struct SimulateHandler {
    let keyRing: KeyRing
    let offers: any OfferStore
    let history: any SubscriptionHistoryStore
    /// Users' first decisions about the offer (a held-out user stays held out, a signed one treated).
    let outcomes: any OutcomeStore
    let appStore: AppStoreVerification
    let clock: WallClock

    /// The order in which `EligibilityEvaluator` checks criteria; failures and the funnel
    /// follow it (a criterion not listed here comes after these, by name).
    static let criterionOrder = [
        "enabled", "startsAt", "endsAt", "requireLapsed", "minPaidDays", "minDaysSinceExpiry", "maxDaysSinceExpiry",
        "waitBetweenOffersDays", "maxRedemptionsPerUser", "excludeRefunded", "storefronts", "expirationIntents", "appleWinBack", "holdout",
    ]

    struct Result: Encodable {
        let bundleId: String
        let offerId: String
        let environment: AppStoreEnvironment
        /// True when the rule judged is the request's body, not the stored one.
        let draft: Bool
        let known: Int
        let eligible: Int
        let sample: [String]
        /// Per criterion that failed anyone: how many users fail it (a user may fail several).
        let failures: [CriterionCount]
        /// Per criterion in evaluation order: how many users pass it and every one before it.
        let funnel: [FunnelStep]
    }

    struct CriterionCount: Encodable {
        let criterion: String
        let users: Int
    }

    struct FunnelStep: Encodable {
        let criterion: String
        let remaining: Int
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let rule: OfferRule
        let draft = !request.body.isEmpty
        if draft {
            // A draft without a bundleId is for the app of ?bundleId=, or the only app, as a PUT body is.
            let configuration = keyRing.current
            let app = request.query["bundleId"] ?? (configuration.apps.count == 1 ? configuration.apps.keys.first : nil)
            let defaultApp: [CodingUserInfoKey: any Sendable] = app.map { [OfferRule.defaultBundleIdKey: $0] } ?? [:]
            rule = try request.decodeJSON(OfferRule.self, userInfo: defaultApp)
            try OfferAdminHandler(keyRing: keyRing, offers: offers, clock: clock).validate(rule, offerId: try context.parameters.require("offerId"))
            if let app = request.query["bundleId"], app != rule.bundleId {
                throw HTTPProblem.invalidRequest("?bundleId= ('\(app)') differs from the draft's bundleId ('\(rule.bundleId)')")
            }
        } else {
            rule = try OfferAdminHandler.stored(request, context, keyRing: keyRing, offers: offers).rule
        }
        let environment = try EnvironmentSelection.environment(request.query["environment"],
                                                               accepted: appStore.acceptedEnvironments,
                                                               source: "?environment=")
        let now = clock.now
        let check = EligibilityCheck(history: history)
        var known = 0
        var eligible = 0
        var sample: [String] = []
        var failing: [String: Int] = [:]
        var firstFailing: [String: Int] = [:]
        var after = ""
        while true {
            let users = try history.knownUsers(bundleId: rule.bundleId, environment: environment,
                                                            afterUserId: after, limit: 1000)
            guard let last = users.last else { break }
            for user in users {
                known += 1
                // Held-out users are counted under the `holdout` criterion, as signing refuses them.
                var decision = try check.decide(userId: user, rule: rule, productId: rule.productIds[0], environment: environment, now: now)
                if decision.eligible, rule.holdoutPercent > 0 {
                    let first = try outcomes.firstDecision(bundleId: rule.bundleId, offerId: rule.offerId, userKey: user)
                    decision = OfferHoldout.apply(to: decision, rule: rule, user: user, firstDecisionHeldOut: first?.heldOut)
                }
                if decision.eligible {
                    eligible += 1
                    if sample.count < 20 { sample.append(user) }
                }
                for reason in decision.reasons { failing[reason.criterion, default: 0] += 1 }
                if let first = decision.reasons.min(by: { Self.rank($0.criterion) < Self.rank($1.criterion) }) {
                    firstFailing[first.criterion, default: 0] += 1
                }
            }
            after = last
        }
        let criteria = failing.keys.sorted { Self.rank($0) < Self.rank($1) }
        var remaining = known
        let funnel = criteria.map { criterion in
            remaining -= firstFailing[criterion] ?? 0
            return FunnelStep(criterion: criterion, remaining: remaining)
        }
        return try HTTPResponse.json(Result(
            bundleId: rule.bundleId, offerId: rule.offerId, environment: environment, draft: draft, known: known, eligible: eligible, sample: sample,
            failures: criteria.map { CriterionCount(criterion: $0, users: failing[$0] ?? 0) }, funnel: funnel))
    }

    /// A criterion's place in the evaluation order, then its name.
    static func rank(_ criterion: String) -> (Int, String) {
        (criterionOrder.firstIndex(of: criterion) ?? criterionOrder.count, criterion)
    }
}

extension SimulateHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/admin/offers/{offerId}/simulate", policy: .roles([.marketing]), query: ["bundleId", "environment"],
                   handler: handle(_:_:))
    }
}
