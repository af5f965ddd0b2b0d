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
        guard let token = Self.bearerToken(header) else {
            return .failure(.unauthorized("the Authorization header must be 'Bearer <token>'"))
        }
        // Hashed from the header's own bytes where they are contiguous (a native string's
        // always are), not from an array copied out of them (issue 38).
        let presented = token.withContiguousStorageIfAvailable { SHA256Digest.hash(UnsafeRawBufferPointer($0)) }
            ?? SHA256Digest.hash(Array(token))
        var match: APIKey?
        for key in keyRing.current.apiKeys where SHA256Digest.constantTimeEquals(key.tokenHash, presented) {
            match = key
        }
        return match.map { .success($0) } ?? .failure(.unauthorized("the API token is not valid"))
    }

    /// The token of `Bearer <token>`: spaces before the scheme skipped, the scheme (any case)
    /// up to the first space, the token everything after it; nil when there is no space, the
    /// scheme is another or the token is empty. Read on the UTF-8 bytes, without splitting
    /// the header into strings nor lowercasing a copy (issue 38).
    static func bearerToken(_ header: String) -> Substring.UTF8View? {
        let utf8 = header.utf8
        guard let start = utf8.firstIndex(where: { $0 != UInt8(ascii: " ") }),
              let space = utf8[start...].firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let scheme = utf8[start..<space]
        // Only A–Z fold onto a–z here (`| 0x20` maps nothing else onto these four letters).
        guard scheme.elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        let token = utf8[utf8.index(after: space)...]
        return token.isEmpty ? nil : token
    }
}
