/// What the router and middleware learn about a request on its way to the handler.
public struct RequestContext: Sendable {
    /// The caller's `X-Request-Id`, or a fresh one.
    public var requestId: String
    /// The matched route pattern (e.g. `/v1/admin/offers/{offerId}`), or nil when none matched.
    public var route: String?
    /// Values of the pattern's `{name}` segments.
    public var parameters: [String: String]
    /// The authenticated caller, set by the authentication middleware.
    public var principal: Principal?
    /// Why the credentials the caller sent are not acceptable, if they are not.
    public var credentialProblem: HTTPProblem?

    public init(requestId: String = "", route: String? = nil, parameters: [String: String] = [:], principal: Principal? = nil) {
        self.requestId = requestId
        self.route = route
        self.parameters = parameters
        self.principal = principal
    }
}

/// An authenticated caller: the API key's name and role.
public struct Principal: Sendable, Hashable {
    public var name: String
    public var role: String

    public init(name: String, role: String) {
        self.name = name
        self.role = role
    }
}
