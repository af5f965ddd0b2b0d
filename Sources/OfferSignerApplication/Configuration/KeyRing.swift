import Foundation
import OfferSignerCore

/// The key configuration in force. Replaced whole on reload, so each request sees one
/// consistent configuration from start to end. Read by every request: a `ReadMostly`.
public final class KeyRing: Sendable {
    private let configuration: ReadMostly<KeyConfiguration>

    public init(_ configuration: KeyConfiguration) {
        self.configuration = ReadMostly(configuration)
    }

    /// The configuration in force now.
    public var current: KeyConfiguration { configuration.read() }

    /// Puts `configuration` in force for every request that starts from now on.
    public func replace(with configuration: KeyConfiguration) {
        self.configuration.write { $0 = configuration }
    }
}
