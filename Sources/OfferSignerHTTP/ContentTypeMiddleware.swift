import Foundation

/// Refuses a request body whose media type its route does not accept (415). Runs after
/// authorization, so an unknown caller learns nothing of what a route accepts; a request that
/// matched no route passes on to its 404 or 405. (Bodies over a route's limit are refused
/// with 413 by the router, which knows the limit.)
public struct ContentTypeMiddleware<Context: RequestContext>: HTTPMiddleware {
    public init() {}

    public func handle(_ request: HTTPRequest, context: Context, next: HTTPResponder<Context>) throws -> HTTPResponse {
        if let accepted = context.core.acceptedMediaTypes, !request.body.isEmpty || request.bodyFile != nil,
           !Self.isPlainlyAccepted(request, accepted) {
            guard let type = request.mediaType, accepted.contains(type) else {
                let expected = accepted.sorted().joined(separator: " or ")
                throw HTTPProblem.unsupportedMediaType(
                    "send the body as \(expected.isEmpty ? "nothing" : expected) (got \(request.mediaType.map { "'\($0)'" } ?? "no Content-Type"))")
            }
        }
        return try next(request, context)
    }

    /// Whether the `Content-Type` is, byte for byte, an accepted type with no parameter, space
    /// or capital letter: then it is its own ``HTTPRequest/mediaType``, and the media type need
    /// not be made (issue 38: a lowercased copy per request). Any other value goes the full way.
    static func isPlainlyAccepted(_ request: HTTPRequest, _ accepted: Set<String>) -> Bool {
        guard let value = request.headers["Content-Type"], !value.isEmpty,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) })
        else { return false }
        return accepted.contains(value)
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
