import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// A group of handlers that declares its own routes, each with who may call it and what it
/// accepts, next to the handlers themselves.
protocol RouteGroup: Sendable {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>)
}
