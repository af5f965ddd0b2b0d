/// Collects routes and middleware, then builds an immutable `Router`.
public struct RouterBuilder<Context: RequestContext> {
    private var routes: [Route<Context>] = []
    private var middleware: [any HTTPMiddleware<Context>] = []
    /// The body limit of routes that set none: 64 KiB.
    public var defaultBodyLimit = 64 * 1024
    /// Asked with the head of a request to a spooling route before its body is read: true
    /// refuses it at once (the middleware chain then answers it without the body).
    public var preflight: (@Sendable (HTTPRequest, Context) -> Bool)?
    /// Told of every error that is not an `HTTPResponseError` (answered with a bare 500).
    public var reportUnexpected: @Sendable (any Error, HTTPRequest, Context) -> Void = { _, _, _ in }

    public init() {}

    /// Adds middleware; the first added runs outermost.
    public mutating func use(_ step: some HTTPMiddleware<Context>) {
        middleware.append(step)
    }

    /// Adds a route with everything declared of it: the application's policy, the query
    /// parameters it takes (`query`), the media types its body may have (`accepts`) and its
    /// size. With `spoolBody` the body is written to a temporary file as it arrives (for large
    /// uploads) and handed over as `request.bodyFile` instead of `request.body`.
    public mutating func add(_ method: String, _ pattern: String, policy: Context.RoutePolicy, query: Set<String> = [],
                             accepts mediaTypes: Set<String> = ["application/json"], maxBodyBytes: Int? = nil,
                             spoolBody: Bool = false, handler: @escaping HTTPResponder<Context>) {
        routes.append(Route(method: method, pattern: pattern, policy: policy, acceptedMediaTypes: mediaTypes, queryParameters: query,
                            body: BodyPolicy(limit: maxBodyBytes ?? defaultBodyLimit, spoolToDisk: spoolBody), handler: handler))
    }

    /// The router, with every responder chained through the middleware once, here.
    public func build() -> Router<Context> {
        var patterns: [String] = []
        var chained: [Router<Context>.ChainedRoute] = []
        for route in routes {
            let pathIndex = patterns.firstIndex(of: route.pattern) ?? {
                patterns.append(route.pattern)
                return patterns.count - 1
            }()
            let limit = route.body.limit
            chained.append(.init(route: route, pathIndex: pathIndex, responder: chain(route.handler),
                                 tooLarge: chain { _, _ in throw HTTPProblem.payloadTooLarge(limit: limit) }))
        }
        let methodsNotAllowed = patterns.map { pattern in
            let allowed = routes.filter { $0.pattern == pattern }.map(\.method)
            let responder = chain { request, _ in throw HTTPProblem.methodNotAllowed(request.method, allowed: allowed) }
            return (pattern: pattern, responder: responder)
        }
        let routeTable = RouteTable(chained.map { (method: $0.route.method, pattern: $0.route.pattern, pathIndex: $0.pathIndex) })
        return Router(table: chained, routeTable: routeTable, methodsNotAllowed: methodsNotAllowed,
                      notFound: chain { request, _ in throw HTTPProblem.notFound("no route for \(request.path)") },
                      defaultBody: BodyPolicy(limit: defaultBodyLimit), preflight: preflight, reportUnexpected: reportUnexpected)
    }

    /// `endpoint` wrapped in the middleware, outermost first.
    private func chain(_ endpoint: @escaping HTTPResponder<Context>) -> HTTPResponder<Context> {
        middleware.reversed().reduce(endpoint) { next, step in
            { request, context in try step.handle(request, context: context, next: next) }
        }
    }
}

extension RouterBuilder where Context.RoutePolicy == Void {
    /// Adds a route of an application that declares nothing more of its routes.
    public mutating func add(_ method: String, _ pattern: String, query: Set<String> = [], accepts mediaTypes: Set<String> = ["application/json"],
                             maxBodyBytes: Int? = nil, spoolBody: Bool = false, handler: @escaping HTTPResponder<Context>) {
        add(method, pattern, policy: (), query: query, accepts: mediaTypes, maxBodyBytes: maxBodyBytes, spoolBody: spoolBody,
            handler: handler)
    }
}
