/// How much of one customer's App Store history a fetch holds before storing it: far above any
/// real history (a monthly subscription renewed for 80 years is under 1,000 transactions of a
/// few KB each), so that a hostile or broken App Store Server API answering page after page
/// cannot take the memory. A history over a limit is refused whole, nothing of it stored.
package struct HistoryFetchLimits: Sendable, Equatable {
    /// Transactions read from the history pages.
    package var maxTransactions: Int = 10_000
    /// Bytes of the signed transactions kept.
    package var maxSignedBytes: Int = 32 << 20
}
