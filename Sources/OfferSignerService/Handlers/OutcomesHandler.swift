import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// What became of the offers: `GET /v1/stats/offers/{offerId}/outcomes` (marketing, auditor:
/// signatures, redemptions with their matches and outcomes, revenue, the holdout comparison)
/// and `GET /v1/audit/redemptions` (auditor: every redemption found in the history, matched to
/// the signature that explains it or not; JSON or, with `Accept: text/csv`, CSV).
struct OutcomesHandler {
    let keyRing: KeyRing
    let offers: any OfferStore
    let appStore: AppStoreVerification
    let outcomes: OfferOutcomes
    let store: any OutcomeStore
    let clock: WallClock

    /// `GET /v1/stats/offers/{offerId}/outcomes?bundleId=&environment=&from=&to=`: `from`/`to`
    /// RFC 3339, by default the 90 days before now.
    func outcomes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let stored = try OfferAdminHandler.stored(request, context, keyRing: keyRing, offers: offers)
        let environment = try EnvironmentSelection.environment(request.query["environment"], accepted: appStore.acceptedEnvironments,
                                                               source: "?environment=")
        let now = clock.now
        let to = try Self.time(request.query, "to") ?? now
        let from = try Self.time(request.query, "from") ?? to.addingTimeInterval(-Double(OfferOutcomes.defaultDays) * 86_400)
        guard from < to else { throw HTTPProblem.invalidRequest("'from' must be before 'to'") }
        do {
            return try HTTPResponse.json(outcomes.report(bundleId: stored.rule.bundleId, offerId: stored.rule.offerId,
                                                         environment: environment, from: from, to: to, now: now))
        } catch let refusal as OfferOutcomes.Refusal {
            switch refusal {
            case .offerNotFound: throw HTTPProblem.notFound(refusal.description)
            case .badPeriod: throw HTTPProblem.invalidRequest(refusal.description)
            }
        }
    }

    /// `GET /v1/audit/redemptions?bundleId=&offerId=&matched=&from=&to=&cursor=&limit=`: in the
    /// order redemptions were first found, cursor-paged like the other audit lists.
    func redemptions(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        var matched: Bool?
        if request.query["matched"] != nil { matched = try AuditHandler.flag(request.query, "matched") }
        let filter = RedemptionFilter(bundleId: request.query["bundleId"], offerId: request.query["offerId"], matched: matched,
                                      from: try Self.time(request.query, "from")?.milliseconds,
                                      to: try Self.time(request.query, "to")?.milliseconds)
        let page = try PageRequest(request.query)
        let records = try store.redemptions(matching: filter, afterId: page.after, limit: page.limit)
        let now = clock.now
        let redemptions = page.page(records, position: \.id) { RedemptionDocument(record: $0, now: now) }
        if request.prefers("text/csv", over: "application/json") {
            var text = CSV.row(RedemptionDocument.csvHeader)
            for document in redemptions.items { text += CSV.row(document.csvFields) }
            var response = HTTPResponse.text(text, contentType: "text/csv; charset=utf-8")
            if let next = redemptions.nextCursor { response.headers.set("X-Next-Cursor", next) }
            return response
        }
        return try HTTPResponse.json(RedemptionPage(page: redemptions))
    }

    /// A page of redemptions: the cursor as `nextCursor`, as the other audit lists name it, and as `next`, as the issue does.
    struct RedemptionPage: Encodable {
        let page: Page<RedemptionDocument>

        enum Keys: String, CodingKey { case next }

        func encode(to encoder: any Encoder) throws {
            try page.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(page.nextCursor, forKey: .next)
        }
    }

    /// The RFC 3339 time of query parameter `name`; nil when absent.
    static func time(_ query: [String: String], _ name: String) throws(HTTPProblem) -> Date? {
        guard let text = query[name] else { return nil }
        guard let date = RFC3339.date(from: text) else {
            throw .invalidRequest("'\(name)' must be an RFC 3339 time such as 2026-11-30T05:45:33Z")
        }
        return date
    }
}

extension OutcomesHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/stats/offers/{offerId}/outcomes", policy: .roles([.marketing, .auditor]),
                   query: ["bundleId", "environment", "from", "to"], handler: outcomes(_:_:))
        router.add("GET", "/v1/audit/redemptions", policy: .roles([.auditor]),
                   query: ["bundleId", "offerId", "matched", "from", "to", "limit", "cursor"], handler: redemptions(_:_:))
    }
}
