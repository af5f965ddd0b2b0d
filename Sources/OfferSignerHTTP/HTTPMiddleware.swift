/// The next step of the chain: later middleware, then the route's handler.
public typealias HTTPResponder = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse

/// A step around every request, in the shape `handle(request, context, next)`.
public protocol HTTPMiddleware: Sendable {
    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse
}
