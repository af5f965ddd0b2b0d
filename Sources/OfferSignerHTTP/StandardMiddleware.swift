import Foundation

/// Takes the caller's `X-Request-Id` (if it is sane) or makes one, and echoes it on every response.
public struct RequestIdMiddleware: HTTPMiddleware {
    public init() {}

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        var context = context
        if let given = request.headers["X-Request-Id"], Self.isAcceptable(given) {
            context.requestId = given
        } else {
            context.requestId = UUID().uuidString.lowercased()
        }
        var response: HTTPResponse
        do {
            response = try next(request, context)
        } catch let problem as HTTPProblem {
            response = problem.response
        } catch {
            response = HTTPProblem.internalError(requestId: context.requestId).response
        }
        response.headers.set("X-Request-Id", context.requestId)
        return response
    }

    /// 1–128 visible ASCII characters.
    static func isAcceptable(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }
}

/// Turns thrown errors into problem documents, so outer middleware sees a status.
/// Unexpected errors become a 500 whose cause goes only to `report`.
public struct ProblemMiddleware: HTTPMiddleware {
    let report: @Sendable (Error, HTTPRequest, RequestContext) -> Void

    public init(report: @escaping @Sendable (Error, HTTPRequest, RequestContext) -> Void) {
        self.report = report
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        do {
            return try next(request, context)
        } catch let problem as HTTPProblem {
            return problem.response
        } catch {
            report(error, request, context)
            return HTTPProblem.internalError(requestId: context.requestId).response
        }
    }
}

/// Refuses request bodies that are not JSON (415). (Bodies over a route's limit are
/// refused with 413 by the router, which knows the limit.)
public struct ContentTypeMiddleware: HTTPMiddleware {
    /// Media types accepted besides `application/json`, by route pattern (e.g. NDJSON for an import).
    let extraTypes: [String: Set<String>]

    public init(extraTypes: [String: Set<String>] = [:]) {
        self.extraTypes = extraTypes
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        if !request.body.isEmpty || request.bodyFile != nil {
            let type = request.headers["Content-Type"]?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
            let accepted = type == "application/json" || (type.map { extraTypes[context.route ?? ""]?.contains($0) == true } ?? false)
            guard let type, accepted else {
                throw HTTPProblem.unsupportedMediaType(
                    "send the body as application/json (got \(type.map { "'\($0)'" } ?? "no Content-Type"))")
            }
        }
        return try next(request, context)
    }
}
