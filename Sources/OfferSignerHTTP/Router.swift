import Foundation
import OfferSignerCore

/// Routes requests to handlers through the middleware chain and turns every error into a
/// response at its edge. Built once by `RouterBuilder`, then immutable, so it is shared by
/// every server thread; every responder (the routes', the 404's, each path's 405 and 413)
/// is chained through the middleware once, at build time.
public struct Router<Context: RequestContext>: HTTPApplication {
    let table: [ChainedRoute]
    /// The routes' methods and patterns, searched for every request head.
    let routeTable: RouteTable
    /// One entry per path pattern, for the 405 of a method the path lacks.
    let methodsNotAllowed: [(pattern: String, responder: HTTPResponder<Context>)]
    let notFound: HTTPResponder<Context>
    let defaultBody: BodyPolicy
    let preflight: (@Sendable (HTTPRequest, Context) -> Bool)?
    let reportUnexpected: @Sendable (any Error, HTTPRequest, Context) -> Void

    struct ChainedRoute: Sendable {
        let route: Route<Context>
        /// The index of the route's path in `methodsNotAllowed`.
        let pathIndex: Int
        /// The handler inside the middleware chain.
        let responder: HTTPResponder<Context>
        /// The 413 answer inside the middleware chain.
        let tooLarge: HTTPResponder<Context>
    }

    /// Every route, in the order declared.
    public var routes: [Route<Context>] { table.map(\.route) }

    public func resolve(method: String, path: String) -> ResolvedRoute {
        switch routeTable.match(method: method, path: path) {
        case .route(let index, let parameters):
            ResolvedRoute(body: table[index].route.body, target: .route(index, parameters))
        case .methodNotAllowed(let pathIndex):
            ResolvedRoute(body: defaultBody, target: .methodNotAllowed(pathIndex))
        case .notFound:
            ResolvedRoute(body: defaultBody, target: .notFound)
        }
    }

    public func answersBeforeBody(_ head: HTTPRequest, route: ResolvedRoute) -> Bool {
        guard let preflight, case .route(let index, let parameters) = route.target, table[index].route.body.spoolToDisk else {
            return false
        }
        return preflight(head, context(for: head, route.target, parameters: parameters))
    }

    public func respond(to request: HTTPRequest, route: ResolvedRoute) -> HTTPResponse {
        let responder: HTTPResponder<Context>
        var parameters = RouteParameters()
        switch route.target {
        case .route(let index, let matched):
            parameters = matched
            responder = request.bodyExceededLimit ? table[index].tooLarge : table[index].responder
        case .methodNotAllowed(let index):
            responder = methodsNotAllowed[index].responder
        case .notFound:
            responder = notFound
        }
        let context = context(for: request, route.target, parameters: parameters)
        var response: HTTPResponse
        do {
            response = try responder(request, context)
        } catch let error as any HTTPResponseError where error.unexpectedCause == nil {
            response = error.problem.response
        } catch {
            reportUnexpected((error as? any HTTPResponseError)?.unexpectedCause ?? error, request, context)
            response = HTTPProblem.internalError(requestId: context.requestId).response
        }
        response.headers.set("X-Request-Id", context.requestId)
        return response
    }

    /// Resolves and responds in one step (for tests and in-process callers).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        respond(to: request, route: resolve(method: request.method, path: request.path))
    }

    /// Whether the head of a request is answered before its body (for tests and in-process callers).
    public func answersBeforeBody(_ head: HTTPRequest) -> Bool {
        answersBeforeBody(head, route: resolve(method: head.method, path: head.path))
    }

    /// The body policy of the route matching `method` and `path`.
    public func bodyPolicy(method: String, path: String) -> BodyPolicy {
        resolve(method: method, path: path).body
    }

    private func context(for request: HTTPRequest, _ target: ResolvedRoute.Target, parameters: RouteParameters) -> Context {
        let requestId = request.headers["X-Request-Id"].flatMap { Identifier.isValid($0, maxLength: 128) ? $0 : nil }
            ?? SecureRandom.lowercasedString(SecureRandom.uuid())  // Foundation's UUID() opens /dev/urandom each time
        switch target {
        case .route(let index, _):
            let route = table[index].route
            return Context(core: CoreRequestContext(requestId: requestId, routePattern: route.pattern, parameters: parameters,
                                                    acceptedMediaTypes: route.acceptedMediaTypes, queryParameters: route.queryParameters),
                           policy: route.policy)
        case .methodNotAllowed(let index):
            return Context(core: CoreRequestContext(requestId: requestId, routePattern: methodsNotAllowed[index].pattern), policy: nil)
        case .notFound:
            return Context(core: CoreRequestContext(requestId: requestId), policy: nil)
        }
    }
}
