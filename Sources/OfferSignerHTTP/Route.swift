/// One method and path pattern, with everything declared of it: the application's policy
/// (e.g. who may call it), the media types and size its body may have, and its handler.
public struct Route<Context: RequestContext>: Sendable {
    /// Upper-case method, e.g. `POST`.
    public let method: String
    /// The path pattern; segments in braces (`{offerId}`) match any one path segment.
    public let pattern: String
    /// What the application declared with the route.
    public let policy: Context.RoutePolicy
    /// Media types accepted for a request body (`application/json`, …).
    public let acceptedMediaTypes: Set<String>
    /// The query parameters the route takes; any other is refused.
    public let queryParameters: Set<String>
    /// How the body is taken: its limit, and whether it is spooled to a temporary file.
    public let body: BodyPolicy
    let handler: HTTPResponder<Context>

    init(method: String, pattern: String, policy: Context.RoutePolicy, acceptedMediaTypes: Set<String>, queryParameters: Set<String>,
         body: BodyPolicy, handler: @escaping HTTPResponder<Context>) {
        self.method = method
        self.pattern = pattern
        self.policy = policy
        self.acceptedMediaTypes = acceptedMediaTypes
        self.queryParameters = queryParameters
        self.body = body
        self.handler = handler
    }
}
