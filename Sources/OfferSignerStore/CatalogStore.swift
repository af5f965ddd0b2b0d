import Foundation
import OfferSignerCore

/// Each app's App Store Connect catalog: the last one a sync read completely, and the last
/// attempt. A failed attempt never replaces a catalog.
public protocol CatalogStore: Sendable {
    /// The app's catalog and attempts; nil when no sync was ever attempted.
    func catalog(bundleId: String) throws -> StoredCatalog?

    /// Puts `catalog`, read completely at `syncedAt`, in place of the app's previous one.
    func save(_ catalog: AppStoreCatalog, bundleId: String, syncedAt: Date) throws

    /// Records a failed attempt, keeping the catalog of the last complete sync.
    func recordFailure(bundleId: String, at: Date, error: String) throws
}

/// An app's catalog as stored: the last complete sync's, and the last attempt.
public struct StoredCatalog: Sendable, Hashable {
    public var bundleId: String
    /// The catalog of the last complete sync; nil when none completed.
    public var catalog: AppStoreCatalog?
    /// When the last complete sync ended.
    public var syncedAt: Date?
    /// When the last attempt ended, complete or not.
    public var attemptedAt: Date
    /// Why the last attempt failed; nil when it completed.
    public var lastError: String?

    public init(bundleId: String, catalog: AppStoreCatalog?, syncedAt: Date?, attemptedAt: Date, lastError: String?) {
        self.bundleId = bundleId
        self.catalog = catalog
        self.syncedAt = syncedAt
        self.attemptedAt = attemptedAt
        self.lastError = lastError
    }
}
