import Foundation
import Synchronization

/// The key configuration in force. Replaced whole on reload, so each request sees one
/// consistent configuration from start to end.
public final class KeyRing: Sendable {
    private let configuration: Mutex<KeyConfiguration>

    public init(_ configuration: KeyConfiguration) {
        self.configuration = Mutex(configuration)
    }

    /// The configuration in force now.
    public var current: KeyConfiguration { configuration.withLock { $0 } }

    /// Puts `configuration` in force for every request that starts from now on.
    public func replace(with configuration: KeyConfiguration) {
        self.configuration.withLock { $0 = configuration }
    }
}
