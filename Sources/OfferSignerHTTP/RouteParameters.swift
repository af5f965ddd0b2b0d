/// The values of a route pattern's `{name}` segments.
public struct RouteParameters: Sendable, Equatable {
    private var values: [String: String]

    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// The value of `{name}`, or nil when the pattern has no such segment.
    public subscript(name: String) -> String? { values[name] }

    /// The value of `{name}`; a handler asking for a segment its pattern lacks is a
    /// programming error, answered with a 500 whose cause goes to the log.
    public func require(_ name: String) throws(MissingRouteParameter) -> String {
        guard let value = values[name] else { throw MissingRouteParameter(name: name) }
        return value
    }
}

/// A handler asked for a path parameter that its route pattern does not declare.
public struct MissingRouteParameter: Error, CustomStringConvertible {
    /// The name asked for.
    public let name: String

    public var description: String { "the route pattern has no '{\(name)}' segment" }
}
