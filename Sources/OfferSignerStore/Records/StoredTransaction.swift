import OfferSignerCore

/// A verified transaction and the signed JWS it came from. It is stored under its
/// environment and `transactionId`.
public struct StoredTransaction: Sendable, Hashable {
    public var transaction: SubscriptionTransaction
    public var signedTransaction: String

    public init(transaction: SubscriptionTransaction, signedTransaction: String) {
        self.transaction = transaction
        self.signedTransaction = signedTransaction
    }
}
