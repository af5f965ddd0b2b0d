import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Identifies the caller from `Authorization: Bearer <token>`, never refusing: it only sets
/// `context.principal` (or notes why the token is not acceptable), so that the request log
/// further in can name the API key. Token hashes are compared in constant time against
/// every configured key.
struct CallerIdentificationMiddleware: HTTPMiddleware {
    let keyRing: KeyRing

    func handle(_ request: HTTPRequest, context: ServiceContext, next: HTTPResponder<ServiceContext>) throws -> HTTPResponse {
        try next(request, identified(request, context))
    }

    /// `context` with the caller named by the request's token, or why the token is refused.
    func identified(_ request: HTTPRequest, _ context: ServiceContext) -> ServiceContext {
        guard let header = request.headers["Authorization"] else { return context }
        var context = context
        switch identify(header) {
        case .success(let key): context.principal = Principal(name: key.name, role: key.role, trust: key.trust)
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
