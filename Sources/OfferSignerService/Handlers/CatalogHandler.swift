import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/admin/catalog?bundleId=`: an app's App Store Connect catalog as the last complete
/// sync read it, with when, whether it is fresh and the last attempt's error; and
/// `POST /v1/admin/catalog/sync` (`?bundleId=` for one app): sync now.
struct CatalogHandler {
    let keyRing: KeyRing
    let catalogs: AppStoreCatalogs
    /// Nil when the service cannot reach App Store Connect.
    let sync: CatalogSync?

    /// The catalog document: the stored catalog's fields and its state.
    struct Document: Encodable {
        let stored: StoredCatalog
        let fresh: Bool

        enum Keys: String, CodingKey {
            case bundleId, appAppleId, syncedAt, fresh, attemptedAt, lastError, subscriptionGroups, subscriptions
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(stored.bundleId, forKey: .bundleId)
            try c.encode(stored.catalog?.appAppleId, forKey: .appAppleId)
            try c.encode(stored.syncedAt.map(RFC3339.string(from:)), forKey: .syncedAt)
            try c.encode(fresh, forKey: .fresh)
            try c.encode(RFC3339.string(from: stored.attemptedAt), forKey: .attemptedAt)
            try c.encode(stored.lastError, forKey: .lastError)
            try c.encode(stored.catalog?.subscriptionGroups ?? [], forKey: .subscriptionGroups)
            try c.encode(stored.catalog?.subscriptions ?? [], forKey: .subscriptions)
        }
    }

    func get(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let bundleId = try AppSelection.bundleId(request.query["bundleId"], in: keyRing.current, source: "?bundleId=")
        guard let stored = try catalogs.stored(bundleId: bundleId) else {
            throw HTTPProblem(status: 404, code: "catalog_not_found", title: "No catalog",
                              detail: "no App Store Connect catalog of \(bundleId) was ever synced: give the app an appStoreConnect "
                                  + "Team key in the keys file and POST /v1/admin/catalog/sync")
        }
        return try HTTPResponse.json(Document(stored: stored, fresh: catalogs.isFresh(stored.syncedAt)))
    }

    func post(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        guard let sync else {
            throw HTTPProblem(status: 503, code: "appstore_connect_unavailable", title: "App Store Connect not configured",
                              detail: "this service has no App Store Connect client")
        }
        let results: [CatalogSyncResult]
        do {
            results = try sync.sync(bundleId: request.query["bundleId"])
        } catch .unknownApp(let bundleId) {
            throw HTTPProblem.notFound("no app with bundleId '\(bundleId)' is configured")
        }
        return try HTTPResponse.json(["results": results.map(ResultDocument.init)])
    }

    /// One app's sync, with `null` for what it lacks.
    struct ResultDocument: Encodable {
        let result: CatalogSyncResult

        enum Keys: String, CodingKey { case bundleId, outcome, syncedAt, subscriptions, promotionalOffers, error }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(result.bundleId, forKey: .bundleId)
            try c.encode(result.outcome.rawValue, forKey: .outcome)
            try c.encode(result.syncedAt.map(RFC3339.string(from:)), forKey: .syncedAt)
            try c.encode(result.subscriptions, forKey: .subscriptions)
            try c.encode(result.promotionalOffers, forKey: .promotionalOffers)
            try c.encode(result.error, forKey: .error)
        }
    }
}

extension CatalogHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/admin/catalog", policy: .roles([.marketing, .auditor]), query: ["bundleId"], handler: get(_:_:))
        router.add("POST", "/v1/admin/catalog/sync", policy: .roles([.admin]), query: ["bundleId"], handler: post(_:_:))
    }
}
