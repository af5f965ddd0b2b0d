/// A time window of App Store Server Notification History whose notifications are all stored.
public struct RecoveredWindow: Sendable, Hashable {
    public var bundleId: String
    public var environment: String
    /// Start and end of the window, in milliseconds since 1970.
    public var start: Int64
    public var end: Int64
    /// Notifications Apple listed in the window, and those of them that were new here.
    public var found: Int
    public var stored: Int
    /// When the window was finished, in milliseconds since 1970.
    public var completedAt: Int64

    public init(bundleId: String, environment: String, start: Int64, end: Int64, found: Int, stored: Int, completedAt: Int64) {
        self.bundleId = bundleId
        self.environment = environment
        self.start = start
        self.end = end
        self.found = found
        self.stored = stored
        self.completedAt = completedAt
    }
}
