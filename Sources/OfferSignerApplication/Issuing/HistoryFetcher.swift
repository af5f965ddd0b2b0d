/// Brings a customer's verified App Store history into the history store, given one of their
/// transaction IDs. The signing use case knows only this; the App Store Server API is behind it.
public protocol HistoryFetcher: Sendable {
    /// Fetches, verifies and stores the history of the customer `transactionId` belongs to,
    /// throwing when it could not (not found, unreachable, refused, or `deadline` passed first:
    /// the fetch stops then, so no work goes on for a request that was answered already).
    func fetchHistory(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant) throws
}
