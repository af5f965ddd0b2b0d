/// The bounds on one app's sync: time, and how much of the catalog it holds in memory.
public struct CatalogSyncLimits: Sendable, Hashable {
    /// The longest one app's sync may take.
    public var maxDuration: Duration
    /// Subscriptions an app may have.
    public var maxSubscriptions: Int
    /// Resources (groups, subscriptions, offers, prices …) one app's catalog may hold.
    public var maxResources: Int

    public init(maxDuration: Duration = .seconds(600), maxSubscriptions: Int = 2_000, maxResources: Int = 200_000) {
        self.maxDuration = maxDuration
        self.maxSubscriptions = maxSubscriptions
        self.maxResources = maxResources
    }
}
