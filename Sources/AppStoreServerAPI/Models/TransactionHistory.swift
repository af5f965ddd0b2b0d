/// A customer's whole transaction history for the app: every page of Get Transaction History.
public struct TransactionHistory: Hashable, Sendable {
    /// The transaction ID the history was asked for.
    public var transactionId: String
    /// Every signed transaction (JWS) of every page, in Apple's order; verify before use.
    public var signedTransactions: [String]
    /// The app's bundle ID, as the first page gave it.
    public var bundleId: String?
    /// The environment as the first page gave it.
    public var rawEnvironment: String?
    /// How many pages were read.
    public var pages: Int
}
