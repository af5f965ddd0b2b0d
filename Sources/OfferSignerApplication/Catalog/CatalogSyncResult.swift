import Foundation

/// How one app's sync ended.
public struct CatalogSyncResult: Sendable, Hashable, Encodable {
    public enum Outcome: String, Sendable, Hashable, Encodable {
        /// Read completely and stored in place of the previous catalog.
        case synced
        /// Not read completely: the previous catalog stays.
        case failed
    }

    public let bundleId: String
    public let outcome: Outcome
    /// When the catalog now in force was read (nil: none ever was).
    public let syncedAt: Date?
    /// Subscriptions and promotional offers read (synced only).
    public let subscriptions: Int?
    public let promotionalOffers: Int?
    /// Why it failed.
    public let error: String?
}
