/// Routes requests to handlers through the middleware chain. Built once by
/// `RouterBuilder`, then immutable, so it is shared by every server thread.
public struct Router: HTTPApplication {
    let routes: [Route]
    let middleware: [any HTTPMiddleware]
    let defaultBodyLimit: Int
    let preflight: (@Sendable (HTTPRequest, RequestContext) -> Bool)?

    /// How the route matching `method` and `path` takes its body.
    public func bodyPolicy(method: String, path: String) -> BodyPolicy {
        let segments = Route.split(path)
        guard let route = routes.first(where: { $0.method == method && $0.match(segments) != nil }) else {
            return BodyPolicy(limit: defaultBodyLimit)
        }
        return BodyPolicy(limit: route.maxBodyBytes, spoolToDisk: route.spoolsBody)
    }

    /// Whether a request to a route that spools its body should be answered from its head
    /// alone (the `preflight` check refused it), so that no one can make the service store a
    /// large upload it would refuse anyway.
    public func answersBeforeBody(_ head: HTTPRequest) -> Bool {
        guard let preflight else { return false }
        let segments = Route.split(head.path)
        guard let route = routes.first(where: { $0.method == head.method && $0.match(segments) != nil }), route.spoolsBody else {
            return false
        }
        return preflight(head, RequestContext(route: route.pattern))
    }

    /// Runs the middleware chain and the matched handler; never throws.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let segments = Route.split(request.path)
        var context = RequestContext()
        var responder: HTTPResponder
        let candidates = routes.compactMap { route in route.match(segments).map { (route, $0) } }
        if let (route, parameters) = candidates.first(where: { $0.0.method == request.method }) {
            context.route = route.pattern
            context.parameters = parameters
            if request.bodyExceededLimit {
                let limit = route.maxBodyBytes
                responder = chain { _, _ in throw HTTPProblem.payloadTooLarge(limit: limit) }
            } else {
                responder = route.responder
            }
        } else if let (route, _) = candidates.first {
            context.route = route.pattern
            let allowed = candidates.map(\.0.method)
            responder = chain { request, _ in throw HTTPProblem.methodNotAllowed(request.method, allowed: allowed) }
        } else {
            responder = chain { request, _ in throw HTTPProblem.notFound("no route for \(request.path)") }
        }
        do {
            return try responder(request, context)
        } catch let problem as HTTPProblem {
            return problem.response
        } catch {
            return HTTPProblem.internalError(requestId: context.requestId).response
        }
    }

    /// `endpoint` wrapped in the middleware, outermost first.
    func chain(_ endpoint: @escaping HTTPResponder) -> HTTPResponder {
        Self.chain(middleware, endpoint)
    }

    static func chain(_ middleware: [any HTTPMiddleware], _ endpoint: @escaping HTTPResponder) -> HTTPResponder {
        middleware.reversed().reduce(endpoint) { next, step in
            { request, context in try step.handle(request, context: context, next: next) }
        }
    }
}

/// Collects routes and middleware, then builds an immutable `Router`.
public struct RouterBuilder {
    private var routes: [Route] = []
    private var middleware: [any HTTPMiddleware] = []
    /// The body limit of routes that set none: 64 KiB.
    public var defaultBodyLimit = 64 * 1024
    /// Asked with the head of a request to a spooling route before its body is read: true
    /// refuses it at once (the middleware chain then answers it without the body).
    public var preflight: (@Sendable (HTTPRequest, RequestContext) -> Bool)?

    public init() {}

    /// Adds middleware; the first added runs outermost.
    public mutating func use(_ step: any HTTPMiddleware) {
        middleware.append(step)
    }

    /// Adds a route. `pattern` segments in braces (`{offerId}`) match any one path segment.
    /// With `spoolBody` the body is written to a temporary file as it arrives (for large
    /// uploads) and handed over as `request.bodyFile` instead of `request.body`.
    public mutating func add(_ method: String, _ pattern: String, maxBodyBytes: Int? = nil, spoolBody: Bool = false,
                             handler: @escaping HTTPResponder) {
        routes.append(Route(method: method, pattern: pattern, maxBodyBytes: maxBodyBytes ?? defaultBodyLimit,
                            spoolsBody: spoolBody, handler: handler))
    }

    /// The router, with each route's middleware chain built once here rather than per request.
    public func build() -> Router {
        let chained = routes.map { route in
            var route = route
            route.responder = Router.chain(middleware, route.handler)
            return route
        }
        return Router(routes: chained, middleware: middleware, defaultBodyLimit: defaultBodyLimit, preflight: preflight)
    }
}

/// One method and path pattern with its handler.
struct Route: Sendable {
    let method: String
    let pattern: String
    let maxBodyBytes: Int
    let spoolsBody: Bool
    let handler: HTTPResponder
    /// The handler inside the router's middleware chain.
    var responder: HTTPResponder
    private let segments: [Substring]

    init(method: String, pattern: String, maxBodyBytes: Int, spoolsBody: Bool, handler: @escaping HTTPResponder) {
        self.method = method
        self.pattern = pattern
        self.maxBodyBytes = maxBodyBytes
        self.spoolsBody = spoolsBody
        self.handler = handler
        self.responder = handler
        self.segments = Route.split(pattern)
    }

    static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// The parameters if `path` matches this pattern.
    func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(segments, path) {
            if expected.first == "{" && expected.last == "}" {
                parameters[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}

/// What a server needs from the application.
public protocol HTTPApplication: Sendable {
    /// How the body of a request to this method and path is taken.
    func bodyPolicy(method: String, path: String) -> BodyPolicy
    /// Whether to answer this request from its head alone, without reading its body.
    func answersBeforeBody(_ head: HTTPRequest) -> Bool
    /// The response to a fully read request.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

/// How a route takes its request body.
public struct BodyPolicy: Sendable, Equatable {
    /// The largest body accepted, in bytes.
    public var limit: Int
    /// Whether the body goes to a temporary file instead of memory.
    public var spoolToDisk: Bool

    public init(limit: Int, spoolToDisk: Bool = false) {
        self.limit = limit
        self.spoolToDisk = spoolToDisk
    }
}
