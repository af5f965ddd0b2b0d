import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// What the service keeps about a request on its way to the handler: the router's core, the
/// access rule declared with the route, and the caller the API token names.
public struct ServiceContext: RequestContext {
    public typealias RoutePolicy = Access

    public let core: CoreRequestContext
    /// Who may call the matched route; nil when no route matched (the 404 or 405 then).
    public let access: Access?
    /// The caller named by a valid API token, set by `CallerIdentificationMiddleware`.
    public var principal: Principal?
    /// Why the token the caller sent is not acceptable, if it is not.
    public var credentialProblem: HTTPProblem?

    public init(core: CoreRequestContext, policy: Access?) {
        self.core = core
        self.access = policy
    }

    /// The name of the calling API key, or empty for an open route.
    public var callerName: String { principal?.name ?? "" }
}
