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

/// Refuses bodies over the route's limit (413) and bodies that are not JSON (415).
public struct BodyMiddleware: HTTPMiddleware {
    let limit: @Sendable (String, String) -> Int

    public init(limit: @escaping @Sendable (_ method: String, _ path: String) -> Int) {
        self.limit = limit
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        if request.bodyExceededLimit {
            throw HTTPProblem.payloadTooLarge(limit: limit(request.method, request.path))
        }
        if !request.body.isEmpty {
            let type = request.headers["Content-Type"]?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
            guard let type, Self.accepted(type, route: context.route) else {
                throw HTTPProblem.unsupportedMediaType(
                    "send the body as application/json (got \(type.map { "'\($0)'" } ?? "no Content-Type"))")
            }
        }
        return try next(request, context)
    }

    private static func accepted(_ type: String, route: String?) -> Bool {
        type == "application/json" || (type == "application/x-ndjson" && route?.hasSuffix("/import") == true)
    }
}
