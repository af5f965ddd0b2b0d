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

@Suite("Route table: the path's canonical form decided without splitting it (issue 38)")
struct RouteTableCanonicalPathTests {
    @Test("a path said canonical on its bytes is the one the general way makes, over 20,000 random paths")
    func bytesAgreeWithSplit() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["/", "/", "/", "a", "b", "v1", "{x}", " ", "%2F", "\u{301}", "é", "\t", "~", ".", "\r\n", "\u{7F}"]
        var canonicalSeen = 0
        for _ in 0..<20_000 {
            // Half of them from a `/`, as libmicrohttpd hands paths over (~5,000 canonical ones in all).
            let path = (Bool.random(using: &generator) ? "/" : "")
                + (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            if RouteTable.isCanonical(path) {
                canonicalSeen += 1
                #expect(RouteTable.canonical(path) == path, "\(path.debugDescription)")
            }
        }
        for path in ["/", "/healthz", "/v1/offers/sign", "/v1/offers/{offerId}"] {
            #expect(RouteTable.isCanonical(path) && RouteTable.canonical(path) == path)
        }
        for path in ["", "//", "/healthz/", "//healthz", "/v1//offers", "healthz", "/a\u{301}", "/a b"] {
            #expect(!RouteTable.isCanonical(path), "\(path.debugDescription)")
        }
        #expect(canonicalSeen > 1_500)
    }

    @Test("every lookup answers as a table whose paths are always split: the same route, parameters and 405/404")
    func sameAnswersAsSplitting() {
        let routes = [
            (method: "GET", pattern: "/v1/{kind}/sign", pathIndex: 0),
            (method: "POST", pattern: "/v1/offers/sign", pathIndex: 1),
            (method: "GET", pattern: "/v1/offers/sign", pathIndex: 1),
            (method: "PUT", pattern: "/v1/{kind}/{id}", pathIndex: 2),
            (method: "GET", pattern: "/", pathIndex: 3),
            (method: "GET", pattern: "/healthz", pathIndex: 4),
        ]
        let table = RouteTable(routes)
        var generator = SystemRandomNumberGenerator()
        let pieces = ["/", "/", "v1", "offers", "sign", "healthz", "x", "é", "\u{301}"]
        for _ in 0..<5_000 {
            // Paths as libmicrohttpd hands them over: from a `/`.
            let path = "/" + (0..<Int.random(in: 0...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for method in ["GET", "POST", "PUT", "PATCH"] {
                #expect(table.match(method: method, path: path) == Self.reference(routes, method: method, path: path),
                        "\(method) \(path.debugDescription)")
            }
        }
    }

    /// The lookup as defined: every pattern tried in declaration order on the split path.
    static func reference(_ routes: [(method: String, pattern: String, pathIndex: Int)], method: String, path: String) -> RouteTable.Match {
        let segments = path.split(separator: "/")
        var firstMatching: Int?
        for (index, route) in routes.enumerated() {
            let pattern = route.pattern.split(separator: "/")
            guard pattern.count == segments.count else { continue }
            var parameters: [String: String] = [:]
            var matches = true
            for (expected, actual) in zip(pattern, segments) {
                if expected.first == "{" && expected.last == "}" {
                    parameters[String(expected.dropFirst().dropLast())] = String(actual)
                } else if expected != actual {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            if route.method == method { return .route(index, RouteParameters(parameters)) }
            firstMatching = firstMatching ?? index
        }
        return firstMatching.map { .methodNotAllowed(pathIndex: routes[$0].pathIndex) } ?? .notFound
    }
}
