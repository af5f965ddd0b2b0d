import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET/PUT/DELETE /v1/admin/offers/{offerId}` and `GET /v1/admin/offers`. An offer belongs
/// to an app: the routes of one offer take its app as the sign endpoint does (`bundleId`,
/// required when more than one app is configured: in the body for PUT, `?bundleId=` for GET
/// and DELETE), and a PUT never moves an offer to another app.
struct OfferAdminHandler {
    let keyRing: KeyRing
    let offers: any OfferStore
    let clock: WallClock
    /// Checks a rule's offer against the App Store Connect catalog before it is saved (nil: not checked, as in simulate).
    var catalogCheck: CatalogRuleCheck? = nil

    /// Every offer, or with `?bundleId=` those of one app.
    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let app = request.query["bundleId"]
        let offers = try offers.offers().filter { offer in app.map { offer.rule.bundleId == $0 } ?? true }
        return try HTTPResponse.json(["offers": offers.map { RuleDocument($0) }])
    }

    func get(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(RuleDocument(try Self.stored(request, context, keyRing: keyRing, offers: offers)))
    }

    /// Creates or replaces the offer of the body's app (or of the only app, when the body names none).
    func put(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offerId = try context.parameters.require("offerId")
        let rule = try request.decodeRule(OfferRule.self, keyRing.current)
        try validate(rule, offerId: offerId)
        var warnings: [String] = []
        switch try catalogCheck?.check(offerId: rule.offerId, bundleId: rule.bundleId, productIds: rule.productIds) ?? .matches {
        case .matches: break
        case .notChecked(let warning): warnings.append(warning)
        case .lacking(let gaps, let syncedAt): throw Self.notAtApple(rule, gaps, syncedAt)
        }
        let existed = try offers.offer(bundleId: rule.bundleId, offerId: offerId) != nil
        let stored = try offers.put(rule, by: context.callerName, at: clock.now)
        var document = RuleDocument(stored)
        document.warnings = warnings
        return try HTTPResponse.json(document, status: existed ? 200 : 201)
    }

    func delete(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offerId = try context.parameters.require("offerId")
        let bundleId = try Self.app(request, keyRing)
        guard let stored = try offers.disable(bundleId: bundleId, offerId: offerId, by: context.callerName,
                                                           at: clock.now) else {
            throw HTTPProblem.notFound("no offer '\(offerId)' is configured for \(bundleId)")
        }
        return try HTTPResponse.json(RuleDocument(stored))
    }

    /// The app named by `?bundleId=`, or the only configured app.
    static func app(_ request: HTTPRequest, _ keyRing: KeyRing) throws(HTTPProblem) -> String {
        try AppSelection.bundleId(request.query["bundleId"], in: keyRing.current, source: "?bundleId=")
    }

    /// The offer of the path's `offerId` in the app of `?bundleId=`.
    static func stored(_ request: HTTPRequest, _ context: ServiceContext, keyRing: KeyRing, offers: any OfferStore) throws -> StoredOffer {
        let offerId = try context.parameters.require("offerId")
        let bundleId = try app(request, keyRing)
        guard let offer = try offers.offer(bundleId: bundleId, offerId: offerId) else {
            throw HTTPProblem.notFound("no offer '\(offerId)' is configured for \(bundleId)")
        }
        return offer
    }

    /// 400 `offer_not_at_apple`: each product lacking the offer at Apple, with what it has.
    static func notAtApple(_ rule: OfferRule, _ gaps: [CatalogOfferGap], _ syncedAt: Date) -> HTTPProblem {
        HTTPProblem(status: 400, code: "offer_not_at_apple", title: "Offer not at App Store Connect",
                    detail: gaps.map { $0.message(offerId: rule.offerId) }.joined(separator: "; ")
                        + " (catalog synced \(RFC3339.string(from: syncedAt)); create the offer in App Store Connect, "
                        + "then POST /v1/admin/catalog/sync)",
                    extensions: ["products": gaps, "catalogSyncedAt": RFC3339.string(from: syncedAt)])
    }

    /// Refuses a rule that cannot be right, naming every fault.
    func validate(_ rule: OfferRule, offerId: String) throws(HTTPProblem) {
        var problems = rule.validationProblems()
        if rule.offerId != offerId {
            problems.insert("'offerId' in the body ('\(rule.offerId)') differs from the offer ID in the path ('\(offerId)')", at: 0)
        }
        if keyRing.current.apps[rule.bundleId] == nil {
            problems.append("no app with bundleId '\(rule.bundleId)' is configured")
        }
        guard problems.isEmpty else { throw .invalidRequest(listing: problems) }
    }
}

extension OfferAdminHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/admin/offers", policy: .roles([.marketing]), query: ["bundleId"], handler: list(_:_:))
        router.add("GET", "/v1/admin/offers/{offerId}", policy: .roles([.marketing]), query: ["bundleId"], handler: get(_:_:))
        router.add("PUT", "/v1/admin/offers/{offerId}", policy: .roles([.marketing]), handler: put(_:_:))
        router.add("DELETE", "/v1/admin/offers/{offerId}", policy: .roles([.marketing]), query: ["bundleId"], handler: delete(_:_:))
        router.add("GET", "/v1/admin/offers/{offerId}/changes", policy: .roles([.marketing]), query: ["bundleId", "limit", "cursor"],
                   handler: changes(_:_:))
    }
}
