/// What a backfill did, per transaction ID of its input and per item stored.
public struct BackfillSummary: Encodable, Equatable, Sendable {
    /// A transaction ID (or input line) that failed, and why.
    public struct Failure: Encodable, Equatable, Sendable {
        /// The transaction ID, or nil for an input line that is not one.
        public var transactionId: String?
        /// The input line, for a line that is not a transaction ID.
        public var line: Int?
        public var reason: String
    }

    /// Distinct transaction IDs in the input.
    public var transactionIds = 0
    /// Input lines that repeat an earlier ID.
    public var repeated = 0
    /// IDs an earlier run is done with (skipped).
    public var alreadyDone = 0
    /// IDs whose customer's history and statuses were fetched, verified and stored.
    public var fetched = 0
    /// IDs found in the history of a customer fetched in this run through another ID (not fetched again).
    public var covered = 0
    /// IDs the App Store does not know for the app (4040010) in any accepted environment.
    public var notFound = 0
    /// IDs (and input lines) that failed; an ID that failed is tried again by the next run.
    public var failedCount = 0
    /// The first failures, with their reasons.
    public var failures: [Failure] = []
    /// Items (transactions, renewal infos) stored new, or newer than the copy held.
    public var accepted = 0
    /// Items of which a copy at least as new was held.
    public var duplicates = 0
    /// Verified items that are not about subscriptions (consumables and other purchases), not stored.
    public var ignored = 0
    /// App Store Server API requests made.
    public var requests = 0
    /// Whether the run stopped before the end (interrupted, or aborted: see `abortReason`).
    public var interrupted = false
    /// IDs not attempted because the run stopped early; the next run does them.
    public var remaining = 0
    /// Why the run stopped early on its own (a failure every ID would share, such as a refused key).
    public var abortReason: String?
    /// Seconds the run took.
    public var seconds = 0.0

    public init() {}

    /// Whether every ID of the input is done (fetched, covered, already done or not found).
    public var complete: Bool { failedCount == 0 && !interrupted }
}
