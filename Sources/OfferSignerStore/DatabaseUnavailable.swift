/// The database cannot be reached now (refused, timed out, restarting): nothing was read or
/// written, and the same call may succeed once it is back. Callers answer "unavailable, retry"
/// rather than report an internal failure.
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    /// What the engine said.
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "the database cannot be reached: \(reason)" }
}
