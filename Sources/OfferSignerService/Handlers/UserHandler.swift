import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/users/{userId}/offers` and `GET /v1/users/{userId}/history`.
struct UserHandler {
    let dependencies: ServiceDependencies

    struct OfferVerdict: Encodable {
        let offerId: String
        let productIds: [String]
        let priority: Int
        let eligible: Bool
        let reasons: [EligibilityReason]
    }

    struct OffersDocument: Encodable {
        let userId: String
        let offers: [OfferVerdict]
    }

    /// Every enabled offer of the user's app (optionally only those for `?productId=`; with
    /// `?includeDisabled=true` disabled ones too, for support staff), each with its verdict,
    /// best priority first.
    func offers(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let userId = try self.userId(context)
        let app = try self.app(request)
        let productFilter = request.query["productId"]
        let includeDisabled = request.query["includeDisabled"] == "true"
        let now = dependencies.clock.now
        let check = EligibilityCheck(history: dependencies.history)
        let userHistory = try dependencies.history.history(userId: userId, bundleId: app)
        let verdicts = try dependencies.offers.offers()
            .filter { $0.rule.bundleId == app && ($0.rule.enabled || includeDisabled) }
            .filter { offer in productFilter.map { offer.rule.productIds.contains($0) } ?? true }
            .sorted { ($0.rule.priority, $1.rule.offerId) > ($1.rule.priority, $0.rule.offerId) }
            .map { offer in
                let product = productFilter ?? offer.rule.productIds[0]
                let decision = try check.decide(userHistory: userHistory, rule: offer.rule, productId: product, now: now)
                return OfferVerdict(offerId: offer.rule.offerId, productIds: offer.rule.productIds, priority: offer.rule.priority,
                                    eligible: decision.eligible, reasons: decision.reasons)
            }
        return try HTTPResponse.json(OffersDocument(userId: userId, offers: verdicts))
    }

    struct HistoryDocument: Encodable {
        let userId: String
        let bundleId: String
        let groups: [HistoryFacts]
        let transactions: [TransactionDocument]
        let renewals: [RenewalDocument]
    }

    /// The facts per subscription group and the verified transactions behind them.
    func history(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let userId = try self.userId(context)
        let bundleId = try app(request)
        let now = dependencies.clock.now
        let history = try dependencies.history.history(userId: userId, bundleId: bundleId)
        let groups = Set(history.transactions.map(\.subscriptionGroupIdentifier)).sorted()
            .compactMap { history.facts(group: $0, now: now) }
        let document = HistoryDocument(
            userId: userId, bundleId: bundleId, groups: groups,
            transactions: history.transactions.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
                .map(TransactionDocument.init),
            renewals: history.renewals.map(RenewalDocument.init))
        return try HTTPResponse.json(document)
    }

    private func userId(_ context: ServiceContext) throws -> String {
        let userId = try context.parameters.require("userId")
        guard InputRules.isUserId(userId) else {
            throw HTTPProblem.invalidRequest("the user ID must be 1–256 printable characters")
        }
        return userId.lowercased()
    }

    /// `?bundleId=`, or the only configured app.
    private func app(_ request: HTTPRequest) throws(HTTPProblem) -> String {
        let configuration = dependencies.keyRing.current
        guard let app = configuration.app(bundleId: request.query["bundleId"]) else {
            if let bundleId = request.query["bundleId"] { throw .notFound("no app with bundleId '\(bundleId)' is configured") }
            throw .invalidRequest("add ?bundleId= (more than one app is configured)")
        }
        return app.bundleId
    }
}
