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

/// A transaction ID a backfill is done with.
public struct BackfillEntry: Sendable, Hashable {
    /// How the backfill finished with a transaction ID.
    public enum Outcome: String, Sendable, Hashable {
        /// Its customer's history and statuses were fetched, verified and stored.
        case fetched
        /// It is in the history of a customer fetched through another transaction ID.
        case covered
        /// The App Store knows no such transaction for the app (4040010) in any accepted environment.
        case notFound = "not_found"
    }

    public var bundleId: String
    public var transactionId: String
    public var outcome: Outcome
    /// The environment the history came from (nil when not found).
    public var environment: String?
    /// For `covered`: the transaction ID whose history held it.
    public var coveredBy: String?
    /// When, in milliseconds since 1970.
    public var finishedAt: Int64

    public init(bundleId: String, transactionId: String, outcome: Outcome, environment: String?, coveredBy: String? = nil,
                finishedAt: Int64) {
        self.bundleId = bundleId
        self.transactionId = transactionId
        self.outcome = outcome
        self.environment = environment
        self.coveredBy = coveredBy
        self.finishedAt = finishedAt
    }
}

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
