/// The routes' methods and path patterns without their handlers: what every request head is
/// looked up in. Plain strings only, apart from the generic `Route`s, so that a lookup copies
/// no handler closures and instantiates no generic metadata (it was a quarter of the CPU of
/// a `GET /healthz`). Patterns without parameters are found by one hash lookup of the path.
struct RouteTable: Sendable {
    /// What a path and method resolve to.
    enum Match: Equatable {
        /// The route at this index, with the path's parameters.
        case route(Int, RouteParameters)
        /// The path has routes, none with this method: the index of its pattern (in order of
        /// first declaration).
        case methodNotAllowed(pathIndex: Int)
        case notFound
    }

    private struct Entry: Sendable {
        let method: String
        let segments: [Segment]
        let pathIndex: Int
    }

    private enum Segment: Sendable {
        case literal(String)
        case parameter(String)
    }

    private let entries: [Entry]
    /// The entries of each parameterless pattern, by pattern, in declaration order.
    private let literalPaths: [String: [Int]]
    /// The entries whose pattern has a parameter, in declaration order.
    private let parameterized: [Int]

    /// `routes`: method and pattern of each route, in declaration order (their indices are
    /// the `Match.route` indices); `pathIndex`: each route's pattern's index.
    init(_ routes: [(method: String, pattern: String, pathIndex: Int)]) {
        var literalPaths: [String: [Int]] = [:]
        var parameterized: [Int] = []
        entries = routes.enumerated().map { index, route in
            let parts = Self.split(route.pattern)
            let segments = parts.map { segment -> Segment in
                segment.first == "{" && segment.last == "}" ? .parameter(String(segment.dropFirst().dropLast())) : .literal(String(segment))
            }
            if segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
                parameterized.append(index)
            } else {
                literalPaths[Self.canonical(route.pattern, parts), default: []].append(index)
            }
            return Entry(method: route.method, segments: segments, pathIndex: route.pathIndex)
        }
        self.literalPaths = literalPaths
        self.parameterized = parameterized
    }

    /// The route of `method` on `path` (empty segments ignored, as in the patterns): of the
    /// routes whose pattern matches, the first declared with this method; without one, the
    /// pattern of the first declared.
    func match(method: String, path: String) -> Match {
        let segments = Self.split(path)
        var firstMatching: Int?
        var found: (index: Int, parameters: RouteParameters)?
        for index in literalPaths[Self.canonical(path, segments)] ?? [] {
            firstMatching = firstMatching ?? index
            if entries[index].method == method {
                found = (index, RouteParameters())
                break
            }
        }
        for index in parameterized {
            if let found, found.index < index { break }
            guard let parameters = Self.match(entries[index].segments, segments) else { continue }
            firstMatching = min(firstMatching ?? index, index)
            if entries[index].method == method {
                found = (index, parameters)
                break
            }
        }
        if let found { return .route(found.index, found.parameters) }
        return firstMatching.map { .methodNotAllowed(pathIndex: entries[$0].pathIndex) } ?? .notFound
    }

    /// `path` as the patterns are keyed: `/` and the segments joined by `/` (the path itself
    /// unless it has empty segments).
    private static func canonical(_ path: String, _ segments: [Substring]) -> String {
        let length = segments.reduce(0) { $0 + 1 + $1.utf8.count }
        return path.utf8.count == length ? path : "/" + segments.joined(separator: "/")
    }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// The parameters when `path` matches `pattern`.
    private static func match(_ pattern: [Segment], _ path: [Substring]) -> RouteParameters? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, path) {
            switch expected {
            case .literal(let literal):
                guard literal == actual else { return nil }
            case .parameter(let name):
                parameters[name] = String(actual)
            }
        }
        return RouteParameters(parameters)
    }
}
