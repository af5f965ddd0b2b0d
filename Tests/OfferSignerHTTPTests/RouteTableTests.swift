import Testing
@testable import OfferSignerHTTP

@Suite("Route table: which route a request head gets")
struct RouteTableTests {
    /// Declared in this order; the pattern indices are those of first declaration.
    let table = RouteTable([
        (method: "GET", pattern: "/v1/offers/{offerId}", pathIndex: 0),
        (method: "GET", pattern: "/v1/offers/export", pathIndex: 1),
        (method: "POST", pattern: "/v1/offers/export", pathIndex: 1),
        (method: "PUT", pattern: "/v1/offers/{offerId}", pathIndex: 0),
        (method: "DELETE", pattern: "/v1/{kind}/export", pathIndex: 2),
        (method: "GET", pattern: "/", pathIndex: 3),
        (method: "GET", pattern: "/healthz", pathIndex: 4),
    ])

    @Test("of the matching routes, the first declared with the method wins, literal or not")
    func declarationOrder() {
        // The parameter pattern was declared before the literal one: it takes the GET.
        #expect(table.match(method: "GET", path: "/v1/offers/export") == .route(0, RouteParameters(["offerId": "export"])))
        #expect(table.match(method: "POST", path: "/v1/offers/export") == .route(2, RouteParameters()))
        #expect(table.match(method: "PUT", path: "/v1/offers/export") == .route(3, RouteParameters(["offerId": "export"])))
        #expect(table.match(method: "DELETE", path: "/v1/offers/export") == .route(4, RouteParameters(["kind": "offers"])))
        #expect(table.match(method: "GET", path: "/healthz") == .route(6, RouteParameters()))
        #expect(table.match(method: "GET", path: "/") == .route(5, RouteParameters()))
    }

    @Test("a path with routes but not this method names the first matching pattern (for its 405); others are 404")
    func notAllowedAndNotFound() {
        #expect(table.match(method: "PATCH", path: "/v1/offers/export") == .methodNotAllowed(pathIndex: 0))
        #expect(table.match(method: "POST", path: "/v1/offers/abc") == .methodNotAllowed(pathIndex: 0))
        #expect(table.match(method: "POST", path: "/healthz") == .methodNotAllowed(pathIndex: 4))
        #expect(table.match(method: "GET", path: "/v1/offers") == .notFound)
        #expect(table.match(method: "GET", path: "/v1/offers/a/b") == .notFound)
        #expect(table.match(method: "GET", path: "/healthz2") == .notFound)
    }

    @Test("empty segments are ignored, as they always were: doubled and trailing slashes match the same route")
    func emptySegments() {
        #expect(table.match(method: "GET", path: "/healthz/") == .route(6, RouteParameters()))
        #expect(table.match(method: "GET", path: "//healthz") == .route(6, RouteParameters()))
        #expect(table.match(method: "GET", path: "/v1//offers/x/") == .route(0, RouteParameters(["offerId": "x"])))
        #expect(table.match(method: "GET", path: "//") == .route(5, RouteParameters()))
    }
}
