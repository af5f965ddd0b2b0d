import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/users/{userId}/offers` and `GET /v1/users/{userId}/history`.
struct UserHandler {
    let keyRing: KeyRing
    let offers: any OfferStore
    let history: any SubscriptionHistoryStore
    /// Users' first decisions about offers with a holdout (a held-out user stays held out).
    let outcomes: any OutcomeStore
    let consent: ConsentCheck
    let appStore: AppStoreVerification
    let clock: WallClock

    struct OfferVerdict: Encodable {
        let offerId: String
        let productIds: [String]
        let priority: Int
        let eligible: Bool
        let reasons: [EligibilityReason]
    }

    struct OffersDocument: Encodable {
        let userId: String
        let environment: AppStoreEnvironment
        let offers: [OfferVerdict]

        /// The JSON text, written directly with the keys sorted, byte for byte what
        /// `JSONCoding.encoder` writes: client apps ask for this before every purchase screen,
        /// and `JSONEncoder` took 14 % of its CPU.
        var json: String {
            JSONValue.object(encoded: [
                ("environment", JSONValue.string(environment.rawValue).encoded),
                ("offers", JSONValue.array(encoded: offers.map { offer in
                    JSONValue.object(encoded: [
                        ("eligible", JSONValue.bool(offer.eligible).encoded),
                        ("offerId", JSONValue.string(offer.offerId).encoded),
                        ("priority", JSONValue.int(offer.priority).encoded),
                        ("productIds", JSONValue.strings(offer.productIds).encoded),
                        ("reasons", JSONValue.array(encoded: offer.reasons.map { reason in
                            JSONValue.object([("actual", reason.actual), ("criterion", .string(reason.criterion)),
                                              ("message", .string(reason.message)), ("required", reason.required)])
                        })),
                    ])
                })),
                ("userId", JSONValue.string(userId).encoded),
            ])
        }
    }

    /// Every enabled offer of the user's app (optionally only those for `?productId=`; with
    /// `?includeDisabled=true` disabled ones too, for support staff), each with its verdict
    /// from the history of one environment (Production unless `?environment=Sandbox`), best
    /// priority first.
    func offers(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let userId = try self.userId(context)
        let app = try self.app(request)
        let environment = try EnvironmentSelection.environment(request.query["environment"],
                                                               accepted: appStore.acceptedEnvironments,
                                                               source: "?environment=")
        let productFilter = request.query["productId"]
        let includeDisabled = try AuditHandler.flag(request.query, "includeDisabled")
        let now = clock.now
        let check = EligibilityCheck(history: history)
        let userHistory = try history.history(userId: userId, bundleId: app)
        let rescinded = try consent.rescinded(history: userHistory, environment: environment)
        let verdicts = try offers.offers()
            .filter { $0.rule.bundleId == app && ($0.rule.enabled || includeDisabled) }
            .filter { offer in productFilter.map { offer.rule.productIds.contains($0) } ?? true }
            .sorted { ($0.rule.priority, $1.rule.offerId) > ($1.rule.priority, $0.rule.offerId) }
            .map { offer in
                let product = productFilter ?? offer.rule.productIds[0]
                // A user in the offer's holdout is refused at signing: the list says so too.
                let first = offer.rule.holdoutPercent > 0
                    ? try outcomes.firstDecision(bundleId: app, offerId: offer.rule.offerId, userKey: userId) : nil
                let decision = OfferHoldout.apply(to: try check.decide(userHistory: userHistory, rule: offer.rule, productId: product,
                                                                       environment: environment, now: now),
                                                  rule: offer.rule, user: userId, firstDecisionHeldOut: first?.heldOut)
                let reasons = rescinded.map { event in
                    [.consentRescinded(at: event.at, appTransactionId: event.appTransactionId)] + decision.reasons
                } ?? decision.reasons
                return OfferVerdict(offerId: offer.rule.offerId, productIds: offer.rule.productIds, priority: offer.rule.priority,
                                    eligible: reasons.isEmpty, reasons: reasons)
            }
        let document = OffersDocument(userId: userId, environment: environment, offers: verdicts)
        return HTTPResponse.json(encoded: document.json)
    }

    struct HistoryDocument: Encodable {
        let userId: String
        let bundleId: String
        /// Rescindings of consent in force for the user's app downloads, in every environment.
        let consentRescinded: [ConsentEventDocument]
        let groups: [HistoryFacts]
        let transactions: [TransactionDocument]
        let renewals: [RenewalDocument]
    }

    /// The facts per subscription group and environment (each from that environment's history
    /// alone), and the verified transactions and renewal infos behind them, each naming its
    /// environment.
    func history(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let userId = try self.userId(context)
        let bundleId = try app(request)
        let now = clock.now
        let history = try history.history(userId: userId, bundleId: bundleId)
        let scopes = Set(history.transactions.map { Scope(group: $0.subscriptionGroupIdentifier, environment: $0.environment) })
        let groups = scopes.sorted().compactMap { history.facts(group: $0.group, environment: $0.environment, now: now) }
        let rescinded = try AppStoreEnvironment.allCases.compactMap {
            try consent.rescinded(history: history, environment: $0)
        }
        let document = HistoryDocument(
            userId: userId, bundleId: bundleId, consentRescinded: rescinded.map(ConsentEventDocument.init), groups: groups,
            transactions: history.transactions
                .sorted { ($0.purchaseDate, $0.transactionId, $0.environment.rawValue) < ($1.purchaseDate, $1.transactionId, $1.environment.rawValue) }
                .map(TransactionDocument.init),
            renewals: history.renewals
                .sorted { ($0.environment.rawValue, $0.originalTransactionId) < ($1.environment.rawValue, $1.originalTransactionId) }
                .map(RenewalDocument.init))
        return try HTTPResponse.json(document)
    }

    /// A subscription group in one environment: the unit facts are computed for.
    private struct Scope: Hashable, Comparable {
        let group: String
        let environment: AppStoreEnvironment

        static func < (a: Scope, b: Scope) -> Bool {
            (a.group, a.environment.rawValue) < (b.group, b.environment.rawValue)
        }
    }

    private func userId(_ context: ServiceContext) throws -> String {
        let userId = try context.parameters.require("userId")
        if let refusal = InputRules.userIdRefusal(userId, field: "the user ID") {
            throw HTTPProblem.invalidRequest(refusal)
        }
        return UserIdFolding.folded(userId)
    }

    /// `?bundleId=`, or the only configured app.
    private func app(_ request: HTTPRequest) throws(HTTPProblem) -> String {
        try AppSelection.bundleId(request.query["bundleId"], in: keyRing.current, source: "?bundleId=")
    }
}

extension UserHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/users/{userId}/offers", policy: .roles([.client, .marketing]),
                   query: ["bundleId", "productId", "environment", "includeDisabled"], handler: offers(_:_:))
        router.add("GET", "/v1/users/{userId}/history", policy: .roles([.marketing]), query: ["bundleId"], handler: history(_:_:))
    }
}
