import Foundation
import OfferSignerHTTP

/// The service's routes, each declared once with who may call it and what body it takes,
/// and the middleware chain around them.
public enum ServiceRouter {
    /// Builds the immutable router over `dependencies`.
    public static func make(_ dependencies: ServiceDependencies) -> Router<ServiceContext> {
        var router = RouterBuilder<ServiceContext>()
        let logger = dependencies.logger
        let identification = CallerIdentificationMiddleware(keyRing: dependencies.keyRing)
        router.use(ConsoleHeadersMiddleware())
        router.use(ClientAddressMiddleware(trustedProxies: dependencies.trustedProxies))
        router.use(identification)
        router.use(ObservabilityMiddleware(metrics: dependencies.metrics, logger: logger))
        router.use(AuthorizationMiddleware())
        router.use(QueryParameterMiddleware())
        router.use(ContentTypeMiddleware())
        router.reportUnexpected = { error, _, context in
            logger.log(.error, "unexpected error", ["requestId": .string(context.requestId),
                                                    "route": .string(context.core.routePattern ?? ""),
                                                    "error": .string(String(describing: error))])
        }
        // A large upload from a caller who may not make it is refused from its head alone.
        router.preflight = { head, context in
            AuthorizationMiddleware.refusal(head, identification.identified(head, context)) != nil
        }
        addRoutes(to: &router, dependencies)
        return router.build()
    }

    /// Every route with who may call it (the README's endpoint table).
    static func addRoutes(to router: inout RouterBuilder<ServiceContext>, _ dependencies: ServiceDependencies) {
        let sign = SignHandler(dependencies: dependencies)
        let offers = OfferAdminHandler(dependencies: dependencies)
        let operations = OperationsHandler(dependencies: dependencies)
        let users = UserHandler(dependencies: dependencies)
        let notifications = NotificationHandler(dependencies: dependencies)
        let audit = AuditHandler(dependencies: dependencies)
        let simulate = SimulateHandler(dependencies: dependencies)
        let historyImport = HistoryImportHandler(dependencies: dependencies)
        let historyRefresh = HistoryRefreshHandler(dependencies: dependencies)
        let stats = StatsHandler(dependencies: dependencies)
        let caller = CallerHandler(dependencies: dependencies)
        let console = ConsoleHandler()
        let retention = RetentionHandler(dependencies: dependencies)
        let introductoryEligibility = IntroductoryEligibilityHandler(dependencies: dependencies)
        let retentionRules = RuleAdminHandler.retention(dependencies)
        let introductoryRules = RuleAdminHandler.introductoryOffer(dependencies)

        router.add("POST", "/v1/offers/sign", policy: .roles([.client]), handler: sign.handle)
        router.add("POST", "/v1/offers/introductory-eligibility", policy: .roles([.client]), handler: introductoryEligibility.handle)
        router.add("GET", "/v1/users/{userId}/offers", policy: .roles([.client, .marketing]),
                   query: ["bundleId", "productId", "environment", "includeDisabled"], handler: users.offers)
        router.add("GET", "/v1/users/{userId}/history", policy: .roles([.marketing]), query: ["bundleId"], handler: users.history)
        router.add("GET", "/v1/admin/offers", policy: .roles([.marketing]), query: ["bundleId"], handler: offers.list)
        router.add("GET", "/v1/admin/offers/{offerId}", policy: .roles([.marketing]), query: ["bundleId"], handler: offers.get)
        router.add("PUT", "/v1/admin/offers/{offerId}", policy: .roles([.marketing]), handler: offers.put)
        router.add("DELETE", "/v1/admin/offers/{offerId}", policy: .roles([.marketing]), query: ["bundleId"], handler: offers.delete)
        router.add("GET", "/v1/admin/offers/{offerId}/changes", policy: .roles([.marketing]), query: ["bundleId", "limit", "cursor"],
                   handler: offers.changes)
        router.add("POST", "/v1/admin/offers/{offerId}/simulate", policy: .roles([.marketing]), query: ["bundleId", "environment"],
                   handler: simulate.handle)
        router.add("POST", "/v1/admin/history/import", policy: .roles([]), accepts: ["application/x-ndjson"],
                   maxBodyBytes: HistoryImportHandler.maxBodyBytes, spoolBody: true, handler: historyImport.handle)
        router.add("POST", "/v1/admin/history/refresh", policy: .roles([]), handler: historyRefresh.handle)
        router.add("GET", "/v1/admin/retention-rules", policy: .roles([.marketing]), query: ["bundleId"], handler: retentionRules.list)
        router.add("GET", "/v1/admin/retention-rules/{ruleId}", policy: .roles([.marketing]), query: ["bundleId"],
                   handler: retentionRules.get)
        router.add("PUT", "/v1/admin/retention-rules/{ruleId}", policy: .roles([.marketing]), handler: retentionRules.put)
        router.add("DELETE", "/v1/admin/retention-rules/{ruleId}", policy: .roles([.marketing]), query: ["bundleId"],
                   handler: retentionRules.delete)
        router.add("GET", "/v1/admin/retention-rules/{ruleId}/changes", policy: .roles([.marketing]),
                   query: ["bundleId", "limit", "cursor"], handler: retentionRules.ruleChanges)
        router.add("GET", "/v1/admin/introductory-offer-rules", policy: .roles([.marketing]), query: ["bundleId"],
                   handler: introductoryRules.list)
        router.add("GET", "/v1/admin/introductory-offer-rules/{ruleId}", policy: .roles([.marketing]), query: ["bundleId"],
                   handler: introductoryRules.get)
        router.add("PUT", "/v1/admin/introductory-offer-rules/{ruleId}", policy: .roles([.marketing]), handler: introductoryRules.put)
        router.add("DELETE", "/v1/admin/introductory-offer-rules/{ruleId}", policy: .roles([.marketing]), query: ["bundleId"],
                   handler: introductoryRules.delete)
        router.add("GET", "/v1/admin/introductory-offer-rules/{ruleId}/changes", policy: .roles([.marketing]),
                   query: ["bundleId", "limit", "cursor"], handler: introductoryRules.ruleChanges)
        router.add("POST", "/v1/notifications/appstore", policy: .open, handler: notifications.handle)
        router.add("POST", "/v1/retention/appstore", policy: .open, handler: retention.handle)
        router.add("GET", "/v1/audit/signatures", policy: .roles([.auditor]),
                   query: ["userId", "offerId", "productId", "bundleId", "keyId", "source", "format", "from", "to", "limit", "cursor"],
                   handler: audit.signatures)
        router.add("GET", "/v1/audit/signatures/{nonce}", policy: .roles([.auditor]), handler: audit.signature)
        router.add("POST", "/v1/audit/verify", policy: .roles([.auditor]), handler: audit.verify)
        router.add("GET", "/v1/audit/integrity", policy: .roles([.auditor]), query: ["signatures"], handler: audit.integrity)
        router.add("GET", "/v1/audit/checkpoints", policy: .roles([.auditor]), query: ["limit", "cursor"], handler: audit.checkpoints)
        router.add("GET", "/v1/audit/offer-changes", policy: .roles([.auditor]), query: ["offerId", "bundleId", "limit", "cursor"],
                   handler: audit.offerChanges)
        router.add("GET", "/v1/audit/retention-rule-changes", policy: .roles([.auditor]), query: ["ruleId", "bundleId", "limit", "cursor"],
                   handler: retentionRules.changes)
        router.add("GET", "/v1/audit/introductory-offer-rule-changes", policy: .roles([.auditor]),
                   query: ["ruleId", "bundleId", "limit", "cursor"], handler: introductoryRules.changes)
        router.add("GET", "/v1/stats/offers", policy: .roles([.marketing, .auditor]), query: ["bundleId"], handler: stats.summary)
        router.add("GET", "/v1/stats/offers/{offerId}", policy: .roles([.marketing, .auditor]), query: ["bundleId", "from", "to", "bucket"],
                   handler: stats.offer)
        router.add("GET", "/v1/keys", policy: .anyRole, handler: operations.keys)
        router.add("GET", "/v1/me", policy: .anyRole, handler: caller.me)
        router.add("GET", "/healthz", policy: .open, handler: operations.health)
        router.add("GET", "/readyz", policy: .open, handler: operations.ready)
        router.add("GET", "/metrics", policy: .open, handler: operations.metrics)
        router.add("GET", "/console", policy: .open, handler: console.index)
        router.add("GET", "/console/{asset}", policy: .open, handler: console.asset)
    }
}
