import Foundation
import OfferSignerHTTP

/// The service's routes, their access rules and the middleware chain.
public enum ServiceRouter {
    /// One row of the route table.
    struct Entry {
        let method: String
        let pattern: String
        let access: Access
        var maxBodyBytes: Int? = nil
        var spoolBody = false
        let handler: HTTPResponder
    }

    /// Builds the immutable router over `dependencies`.
    public static func make(_ dependencies: ServiceDependencies) -> Router {
        let table = routes(dependencies)
        var builder = RouterBuilder()
        let access = Dictionary(table.map { ("\($0.method) \($0.pattern)", $0.access) }, uniquingKeysWith: { first, _ in first })
        let logger = dependencies.logger
        builder.use(RequestIdMiddleware())
        builder.use(ClientAddressMiddleware(trustedProxies: dependencies.trustedProxies))
        builder.use(CallerIdentificationMiddleware(keyRing: dependencies.keyRing))
        builder.use(ObservabilityMiddleware(metrics: dependencies.metrics, logger: logger))
        builder.use(ProblemMiddleware { error, request, context in
            logger.log(.error, "unexpected error", ["requestId": .string(context.requestId), "route": .string(context.route ?? ""),
                                                    "error": .string(String(describing: error))])
        })
        builder.use(AuthorizationMiddleware(access: access))
        builder.use(ContentTypeMiddleware(extraTypes: ["/v1/admin/history/import": ["application/x-ndjson"]]))
        let keyRing = dependencies.keyRing
        builder.preflight = { head, context in
            !mayCall(head, context: context, access: access, keyRing: keyRing)
        }
        for entry in table {
            builder.add(entry.method, entry.pattern, maxBodyBytes: entry.maxBodyBytes, spoolBody: entry.spoolBody, handler: entry.handler)
        }
        return builder.build()
    }

    /// Every route with who may call it (CONTRACT.md's endpoint table).
    static func routes(_ dependencies: ServiceDependencies) -> [Entry] {
        let sign = SignHandler(dependencies: dependencies)
        let offers = OfferAdminHandler(dependencies: dependencies)
        let operations = OperationsHandler(dependencies: dependencies)
        let users = UserHandler(dependencies: dependencies)
        let notifications = NotificationHandler(dependencies: dependencies)
        let audit = AuditHandler(dependencies: dependencies)
        let simulate = SimulateHandler(dependencies: dependencies)
        let historyImport = HistoryImportHandler(dependencies: dependencies)
        return [
            Entry(method: "POST", pattern: "/v1/offers/sign", access: .roles([.client]), handler: sign.handle),
            Entry(method: "GET", pattern: "/v1/users/{userId}/offers", access: .roles([.client]), handler: users.offers),
            Entry(method: "GET", pattern: "/v1/users/{userId}/history", access: .roles([.marketing]), handler: users.history),
            Entry(method: "GET", pattern: "/v1/admin/offers", access: .roles([.marketing]), handler: offers.list),
            Entry(method: "GET", pattern: "/v1/admin/offers/{offerId}", access: .roles([.marketing]), handler: offers.get),
            Entry(method: "PUT", pattern: "/v1/admin/offers/{offerId}", access: .roles([.marketing]), handler: offers.put),
            Entry(method: "DELETE", pattern: "/v1/admin/offers/{offerId}", access: .roles([.marketing]), handler: offers.delete),
            Entry(method: "POST", pattern: "/v1/admin/offers/{offerId}/simulate", access: .roles([.marketing]), handler: simulate.handle),
            Entry(method: "POST", pattern: "/v1/admin/history/import", access: .roles([]), maxBodyBytes: HistoryImportHandler.maxBodyBytes,
                  spoolBody: true, handler: historyImport.handle),
            Entry(method: "POST", pattern: "/v1/notifications/appstore", access: .open, handler: notifications.handle),
            Entry(method: "GET", pattern: "/v1/audit/signatures", access: .roles([.auditor]), handler: audit.signatures),
            Entry(method: "GET", pattern: "/v1/audit/signatures/{nonce}", access: .roles([.auditor]), handler: audit.signature),
            Entry(method: "POST", pattern: "/v1/audit/verify", access: .roles([.auditor]), handler: audit.verify),
            Entry(method: "GET", pattern: "/v1/audit/integrity", access: .roles([.auditor]), handler: audit.integrity),
            Entry(method: "GET", pattern: "/v1/audit/offer-changes", access: .roles([.auditor]), handler: audit.offerChanges),
            Entry(method: "GET", pattern: "/v1/keys", access: .anyRole, handler: operations.keys),
            Entry(method: "GET", pattern: "/healthz", access: .open, handler: operations.health),
            Entry(method: "GET", pattern: "/readyz", access: .open, handler: operations.ready),
            Entry(method: "GET", pattern: "/metrics", access: .open, handler: operations.metrics),
        ]
    }
}
