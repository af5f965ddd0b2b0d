import Foundation
import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// The middleware chain around the routes the handler groups declare (each group declares
/// its own, with who may call it and what body it takes).
public enum ServiceRouter {
    /// Builds the immutable router over the handler groups' routes.
    static func make(_ groups: [any RouteGroup], keyRing: KeyRing, trustedProxies: Set<String>, metrics: Metrics,
                     logger: Logger) -> Router<ServiceContext> {
        var router = RouterBuilder<ServiceContext>()
        let identification = CallerIdentificationMiddleware(keyRing: keyRing)
        router.use(ConsoleHeadersMiddleware())
        router.use(ClientAddressMiddleware(trustedProxies: trustedProxies))
        router.use(identification)
        router.use(ObservabilityMiddleware(metrics: metrics, logger: logger))
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
        for group in groups {
            group.addRoutes(to: &router)
        }
        return router.build()
    }
}
