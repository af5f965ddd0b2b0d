import OfferSignerCore
import OfferSignerHTTP

/// Identifies the caller from `Authorization: Bearer <token>`, never refusing: it only sets
/// `context.principal` (or notes why the token is not acceptable), so that the request log
/// further in can name the API key. Token hashes are compared in constant time against
/// every configured key.
struct CallerIdentificationMiddleware: HTTPMiddleware {
    let keyRing: KeyRing

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        try next(request, identified(request, context))
    }

    /// `context` with the caller named by the request's token, or why the token is refused.
    func identified(_ request: HTTPRequest, _ context: RequestContext) -> RequestContext {
        guard let header = request.headers["Authorization"] else { return context }
        var context = context
        switch identify(header) {
        case .success(let key): context.principal = Principal(name: key.name, role: key.role.rawValue)
        case .failure(let problem): context.credentialProblem = problem
        }
        return context
    }

    private func identify(_ header: String) -> Result<APIKey, HTTPProblem> {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            return .failure(.unauthorized("the Authorization header must be 'Bearer <token>'"))
        }
        let presented = SHA256Digest.hash(Array(parts[1].utf8))
        var match: APIKey?
        for key in keyRing.current.apiKeys where SHA256Digest.constantTimeEquals(key.tokenHash, presented) {
            match = key
        }
        return match.map { .success($0) } ?? .failure(.unauthorized("the API token is not valid"))
    }
}

/// Enforces each route's access rule: 401 without a valid token, 403 for a role that may
/// not call the route.
struct AuthorizationMiddleware: HTTPMiddleware {
    /// The access rule of each route, keyed `METHOD /pattern`; routes not listed are open
    /// (a method the route lacks then gets its 405).
    let access: [String: Access]

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        if let refusal = refusal(request, context) { throw refusal }
        return try next(request, context)
    }

    /// Why the identified caller may not call the route, or nil when it may.
    func refusal(_ request: HTTPRequest, _ context: RequestContext) -> HTTPProblem? {
        guard let route = context.route, let rule = access["\(request.method) \(route)"] else { return nil }
        if case .open = rule { return nil }
        if let problem = context.credentialProblem { return problem }
        guard let principal = context.principal, let role = Role(rawValue: principal.role) else {
            return .unauthorized("send an API token as 'Authorization: Bearer <token>'")
        }
        guard rule.allows(role) else {
            return .forbidden("the '\(role.rawValue)' role may not call \(request.method) \(route)")
        }
        return nil
    }
}

extension ServiceRouter {
    /// Whether the caller named in `head` may call the route: the decision of
    /// `CallerIdentificationMiddleware` + `AuthorizationMiddleware`, taken before a large
    /// upload is read.
    static func mayCall(_ head: HTTPRequest, context: RequestContext, access: [String: Access], keyRing: KeyRing) -> Bool {
        let identified = CallerIdentificationMiddleware(keyRing: keyRing).identified(head, context)
        return AuthorizationMiddleware(access: access).refusal(head, identified) == nil
    }
}
