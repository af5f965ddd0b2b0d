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
        // The path's segments are split only when a parameterized pattern must be tried: a
        // parameterless route declared before every parameterized one is found by the hash
        // lookup alone (issue 38: the split was most of a lookup's cost).
        var split: [Substring]?
        func segments() -> [Substring] {
            if let split { return split }
            let made = Self.split(path)
            split = made
            return made
        }
        var firstMatching: Int?
        var found: (index: Int, parameters: RouteParameters)?
        let key = Self.isCanonical(path) ? path : Self.canonical(path, segments())
        for index in literalPaths[key] ?? [] {
            firstMatching = firstMatching ?? index
            if entries[index].method == method {
                found = (index, RouteParameters())
                break
            }
        }
        for index in parameterized {
            if let found, found.index < index { break }
            guard let parameters = Self.match(entries[index].segments, segments()) else { continue }
            firstMatching = min(firstMatching ?? index, index)
            if entries[index].method == method {
                found = (index, parameters)
                break
            }
        }
        if let found { return .route(found.index, found.parameters) }
        return firstMatching.map { .methodNotAllowed(pathIndex: entries[$0].pathIndex) } ?? .notFound
    }

    /// Whether `path` is its own ``canonical(_:_:)`` form, decided on its bytes without
    /// splitting it: printable ASCII other than a space, a leading `/`, no empty segment (no
    /// `//`, no trailing `/` but in `/` itself). Any other path (non-ASCII ones included,
    /// where a `/` could be part of a larger character) goes the general way.
    static func isCanonical(_ path: String) -> Bool {
        path.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            var previous = UInt8(ascii: "/")
            for byte in bytes.dropFirst() {
                guard byte > 0x20, byte < 0x7F, !(byte == UInt8(ascii: "/") && previous == byte) else { return false }
                previous = byte
            }
            return bytes.count == 1 || previous != UInt8(ascii: "/")
        } ?? false
    }

    /// The key of `path` in the parameterless patterns, made the general way (for tests that
    /// hold ``isCanonical(_:)`` to it).
    static func canonical(_ path: String) -> String {
        canonical(path, split(path))
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
