/// What the router found for a request head, looked up once when the head arrives and
/// carried by the server from the body policy to the response.
public struct ResolvedRoute: Sendable {
    /// How the request's body is taken.
    public let body: BodyPolicy
    let target: Target

    enum Target: Sendable {
        /// The route at this index of the router's table, with the path's parameters.
        case route(Int, RouteParameters)
        /// A route has this path but not this method: the index of the path's entry in the
        /// router's 405 table.
        case methodNotAllowed(Int)
        case notFound
    }
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

/// What a server needs from the application.
public protocol HTTPApplication: Sendable {
    /// The route of a request head, looked up once per request.
    func resolve(method: String, path: String) -> ResolvedRoute
    /// Whether to answer this request from its head alone, without reading its body.
    func answersBeforeBody(_ head: HTTPRequest, route: ResolvedRoute) -> Bool
    /// The response to a fully read request.
    func respond(to request: HTTPRequest, route: ResolvedRoute) -> HTTPResponse
}
