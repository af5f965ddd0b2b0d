import Foundation

/// Refuses a request body whose media type its route does not accept (415). Runs after
/// authorization, so an unknown caller learns nothing of what a route accepts; a request that
/// matched no route passes on to its 404 or 405. (Bodies over a route's limit are refused
/// with 413 by the router, which knows the limit.)
public struct ContentTypeMiddleware<Context: RequestContext>: HTTPMiddleware {
    public init() {}

    public func handle(_ request: HTTPRequest, context: Context, next: HTTPResponder<Context>) throws -> HTTPResponse {
        if let accepted = context.core.acceptedMediaTypes, !request.body.isEmpty || request.bodyFile != nil {
            guard let type = request.mediaType, accepted.contains(type) else {
                let expected = accepted.sorted().joined(separator: " or ")
                throw HTTPProblem.unsupportedMediaType(
                    "send the body as \(expected.isEmpty ? "nothing" : expected) (got \(request.mediaType.map { "'\($0)'" } ?? "no Content-Type"))")
            }
        }
        return try next(request, context)
    }
}

extension HTTPRequest {
    /// The `Content-Type` without parameters and optional whitespace (space, tab: RFC 9110
    /// §5.6.3), lowercased (`application/json`).
    public var mediaType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        guard let type = value.utf8.prefix(while: { $0 != UInt8(ascii: ";") }).trimmingOptionalWhitespace else {
            return value.isEmpty ? nil : ""
        }
        return type.lowercased()
    }
}
