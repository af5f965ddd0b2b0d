import Foundation
import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/me`: who the API token belongs to, what its role may do, and the configured
/// apps, so that a tool (the web console) can show only what the caller may use.
struct CallerHandler {
    let keyRing: KeyRing
    let appStore: AppStoreVerification

    struct CallerDocument: Encodable {
        let name: String
        let role: Role
        /// The configured apps' bundle IDs, sorted.
        let apps: [String]
        /// The App Store environments whose history the service keeps, sorted (Production first).
        let environments: [String]
        /// The apps with an App Store Connect Team key, whose catalog the service syncs, sorted.
        let catalogApps: [String]
    }

    func me(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        guard let principal = context.principal else {
            throw HTTPProblem.unauthorized("send an API token as 'Authorization: Bearer <token>'")
        }
        let apps = keyRing.current.apps.keys.sorted()
        let environments = appStore.acceptedEnvironments.sorted()
        let catalogApps = keyRing.current.apps.values.filter { $0.appStoreConnect != nil }.map(\.bundleId).sorted()
        return try HTTPResponse.json(CallerDocument(name: principal.name, role: principal.role, apps: apps, environments: environments,
                                                    catalogApps: catalogApps))
    }
}

extension CallerHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/me", policy: .anyRole, handler: me(_:_:))
    }
}
