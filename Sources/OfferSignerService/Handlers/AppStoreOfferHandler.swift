import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Promotional offers created, re-priced and deleted at App Store Connect through the service
/// (`/v1/admin/appstore/promotional-offers`), the price points they are priced with
/// (`/v1/admin/appstore/price-points`), and the record of every change
/// (`/v1/audit/appstore-changes`).
struct AppStoreOfferHandler {
    let keyRing: KeyRing
    /// Nil when the service keeps no catalogs (no App Store Connect).
    let offers: AppStorePromotionalOffers?

    func create(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let draft = try request.decodeJSON(PromotionalOfferDraft.self)
        let bundleId = try AppSelection.bundleId(draft.bundleId, in: keyRing.current, source: "\"bundleId\"")
        let change = try use().create(draft, bundleId: bundleId, by: context.callerName)
        return try HTTPResponse.json(change, status: change.outcome == .created ? 201 : 200)
    }

    func replacePrices(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, productId) = try product(request)
        let pricing = try request.decodeJSON(PromotionalOfferPricing.self)
        let change = try use().replacePrices(bundleId: bundleId, productId: productId, offerCode: try context.parameters.require("offerCode"),
                                             pricing: pricing, by: context.callerName)
        return try HTTPResponse.json(change)
    }

    func delete(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, productId) = try product(request)
        let change = try use().delete(bundleId: bundleId, productId: productId, offerCode: try context.parameters.require("offerCode"),
                                      by: context.callerName)
        return try HTTPResponse.json(change)
    }

    func pricePoints(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, productId) = try product(request)
        guard let territory = request.query["territory"] else { throw HTTPProblem.invalidRequest("add ?territory= (USA, FRA, …)") }
        let points = try use().pricePoints(bundleId: bundleId, productId: productId, territory: territory)
        return try HTTPResponse.json(["pricePoints": points])
    }

    func equalizations(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, productId) = try product(request)
        guard let territory = request.query["territory"], let customerPrice = request.query["customerPrice"] else {
            throw HTTPProblem.invalidRequest("add ?territory= and ?customerPrice= (the price to equalize, e.g. USA and 4.99)")
        }
        let (base, equalized) = try use().equalizations(bundleId: bundleId, productId: productId, territory: territory,
                                                        customerPrice: customerPrice)
        struct Document: Encodable {
            let base: AppStorePricePoint
            let equalizations: [AppStorePricePoint]
        }
        return try HTTPResponse.json(Document(base: base, equalizations: equalized))
    }

    /// Every change made at App Store Connect through the service, oldest first (`?bundleId=`, `?ruleId=`, paged).
    func changes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let changes = try use().changes(bundleId: request.query["bundleId"], ruleId: request.query["ruleId"], afterId: page.after,
                                        limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id) { RuleChangeDocument($0) })
    }

    /// The app (`?bundleId=`, or the only one) and the product (`?productId=`) a request names.
    private func product(_ request: HTTPRequest) throws(HTTPProblem) -> (String, String) {
        let bundleId = try AppSelection.bundleId(request.query["bundleId"], in: keyRing.current, source: "?bundleId=")
        guard let productId = request.query["productId"] else { throw .invalidRequest("add ?productId= (the subscription's product ID)") }
        return (bundleId, productId)
    }

    private func use() throws(HTTPProblem) -> AppStorePromotionalOffers {
        guard let offers else {
            throw HTTPProblem(status: 409, code: "appstore_connect_not_configured", title: "App Store Connect not configured",
                              detail: "this service keeps no App Store Connect catalogs, so it cannot change offers at Apple")
        }
        return offers
    }
}

extension AppStoreOfferHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        let offers = "/v1/admin/appstore/promotional-offers"
        let product: Set<String> = ["bundleId", "productId"]
        router.add("POST", offers, policy: .roles([.marketing]), handler: create(_:_:))
        router.add("PATCH", "\(offers)/{offerCode}/prices", policy: .roles([.marketing]), query: product, handler: replacePrices(_:_:))
        router.add("DELETE", "\(offers)/{offerCode}", policy: .roles([.marketing]), query: product, handler: delete(_:_:))
        router.add("GET", "/v1/admin/appstore/price-points", policy: .roles([.marketing]), query: product.union(["territory"]),
                   handler: pricePoints(_:_:))
        router.add("GET", "/v1/admin/appstore/price-points/equalizations", policy: .roles([.marketing]),
                   query: product.union(["territory", "customerPrice"]), handler: equalizations(_:_:))
        router.add("GET", "/v1/audit/appstore-changes", policy: .roles([.auditor]), query: ["bundleId", "ruleId", "limit", "cursor"],
                   handler: changes(_:_:))
    }
}
