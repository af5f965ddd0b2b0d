/// What the application keeps about one request on its way through the middleware to the
/// handler (Hummingbird's pattern): the router fills in the `core`, the application adds its
/// own members (who is calling, say) and declares with each route what its middleware needs
/// to know of it (`RoutePolicy`, e.g. who may call the route).
public protocol RequestContext: Sendable {
    /// What the application declares with each route besides its method, path and body rules.
    associatedtype RoutePolicy: Sendable

    /// A context for a request: `policy` is the matched route's, nil when no route matched.
    init(core: CoreRequestContext, policy: RoutePolicy?)

    /// What the router knows of the request.
    var core: CoreRequestContext { get }
}

extension RequestContext {
    /// The caller's `X-Request-Id`, or a fresh one.
    public var requestId: String { core.requestId }
    /// Values of the matched pattern's `{name}` segments.
    public var parameters: RouteParameters { core.parameters }
}

/// What the router learns of a request before the middleware sees it.
public struct CoreRequestContext: Sendable {
    /// The caller's `X-Request-Id` when it is 1–128 visible ASCII characters, or a fresh UUID.
    public let requestId: String
    /// The pattern of the route whose path matched (e.g. `/v1/admin/offers/{offerId}`),
    /// also when its method did not; nil when no route's path matched.
    public let routePattern: String?
    /// Values of the pattern's `{name}` segments.
    public let parameters: RouteParameters
    /// Media types the matched route accepts for a request body; nil when no route matched
    /// (the request is then answered 404 or 405 whatever it carries).
    public let acceptedMediaTypes: Set<String>?
    /// Query parameters the matched route takes; nil when no route matched.
    public let queryParameters: Set<String>?

    public init(requestId: String, routePattern: String? = nil, parameters: RouteParameters = RouteParameters(),
                acceptedMediaTypes: Set<String>? = nil, queryParameters: Set<String>? = nil) {
        self.requestId = requestId
        self.routePattern = routePattern
        self.parameters = parameters
        self.acceptedMediaTypes = acceptedMediaTypes
        self.queryParameters = queryParameters
    }
}
