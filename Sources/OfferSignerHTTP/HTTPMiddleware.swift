/// The next step of the chain: later middleware, then the route's handler. Errors thrown
/// here become responses once, at the router's edge (`HTTPResponseError`).
public typealias HTTPResponder<Context: RequestContext> = @Sendable (HTTPRequest, Context) throws -> HTTPResponse

/// A step around every request, in the shape `handle(request, context, next)`.
public protocol HTTPMiddleware<Context>: Sendable {
    associatedtype Context: RequestContext

    func handle(_ request: HTTPRequest, context: Context, next: HTTPResponder<Context>) throws -> HTTPResponse
}
