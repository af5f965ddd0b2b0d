import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// Enforces the access rule declared with each route: 401 without a valid token, 403 for a
/// role that may not call the route. Requests that matched no route pass on to their 404/405.
struct AuthorizationMiddleware: HTTPMiddleware {
    func handle(_ request: HTTPRequest, context: ServiceContext, next: HTTPResponder<ServiceContext>) throws -> HTTPResponse {
        if let refusal = Self.refusal(request, context) { throw refusal }
        return try next(request, context)
    }

    /// Why the identified caller may not call the route, or nil when it may.
    static func refusal(_ request: HTTPRequest, _ context: ServiceContext) -> HTTPProblem? {
        guard let rule = context.access else { return nil }
        if case .open = rule { return nil }
        if let problem = context.credentialProblem { return problem }
        guard let principal = context.principal else {
            return .unauthorized("send an API token as 'Authorization: Bearer <token>'")
        }
        guard rule.allows(principal.role) else {
            return .forbidden("the '\(principal.role.rawValue)' role may not call \(request.method) \(context.core.routePattern ?? request.path)")
        }
        return nil
    }
}
