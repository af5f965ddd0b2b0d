import OfferSignerApplication
import OfferSignerHTTP

/// Puts the console's security headers on every response under `/console`, errors included
/// (a problem thrown further in keeps travelling to the router's edge, carrying them): a
/// strict Content-Security-Policy (only the service's own scripts, styles and API; no inline
/// script or style; no framing), `nosniff`, and no `Referer` leaving the page.
struct ConsoleHeadersMiddleware: HTTPMiddleware {
    static let headers: [(String, String)] = [
        ("Content-Security-Policy",
         "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    func handle(_ request: HTTPRequest, context: ServiceContext, next: HTTPResponder<ServiceContext>) throws -> HTTPResponse {
        guard Self.isConsole(request.path) else { return try next(request, context) }
        do {
            var response = try next(request, context)
            for (name, value) in Self.headers { response.headers.set(name, value) }
            return response
        } catch var problem as HTTPProblem {
            for (name, value) in Self.headers { problem.headers.set(name, value) }
            throw problem
        }
    }

    /// Whether `path` is the console's (`/console` or below it).
    static func isConsole(_ path: String) -> Bool {
        path == "/console" || path.hasPrefix("/console/")
    }
}
