import Foundation

/// What the service fetched from the App Store Server API, so that work is not repeated: the
/// transaction IDs a backfill is done with, and the Notification History windows recovered.
public protocol AppStoreSyncStore: Sendable {
    /// Those of `transactionIds` that a backfill of `bundleId` is done with.
    func backfilled(bundleId: String, among transactionIds: [String]) throws -> Set<String>

    /// Records transaction IDs as done, in one durable transaction; a later entry for the
    /// same ID replaces the earlier one.
    func recordBackfill(_ entries: [BackfillEntry]) throws

    /// The recorded window of `bundleId` in `environment` that ends last, if any.
    func lastRecoveredWindow(bundleId: String, environment: String) throws -> RecoveredWindow?

    /// Records a window whose notifications are all stored.
    func recordRecoveredWindow(_ window: RecoveredWindow) throws
}
