import Foundation

/// Where the service reads the time, so tests can fix it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    public var now: Date { read() }

    /// The system's clock.
    public static let system = WallClock { Date() }

    /// A clock stopped at `date`.
    public static func fixed(_ date: Date) -> WallClock { WallClock { date } }
}
