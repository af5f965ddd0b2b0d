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
