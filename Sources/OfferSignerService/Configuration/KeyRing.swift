import Foundation

/// The key configuration in force. Replaced whole on reload, so each request sees one
/// consistent configuration from start to end.
public final class KeyRing: @unchecked Sendable {
    private let lock = NSLock()
    private var configuration: KeyConfiguration

    public init(_ configuration: KeyConfiguration) {
        self.configuration = configuration
    }

    public var current: KeyConfiguration { lock.withLock { configuration } }

    public func replace(with configuration: KeyConfiguration) {
        lock.withLock { self.configuration = configuration }
    }
}
