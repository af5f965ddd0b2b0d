import OfferSignerCore

/// Why signed App Store data was not taken into the history, or not taken as proof of who
/// the customer is.
public enum SignedItemRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JWS did not verify (chain, signature, app, environment, shape).
    case invalidSignedData(SignedDataError)
    /// A verified transaction that is not an auto-renewable subscription transaction with
    /// everything the history needs.
    case notASubscriptionTransaction
    /// Verified renewal info that names no subscription.
    case renewalWithoutSubscription
    /// A verified app transaction without `receiptCreationDate`, whose age cannot be judged.
    case appTransactionWithoutDate
    /// A verified app transaction signed longer ago than the service accepts.
    case appTransactionTooOld(ageSeconds: Int64, maxAgeSeconds: Int)
    /// A verified app transaction signed later than now (beyond a few minutes of clock skew).
    case appTransactionFromTheFuture

    public var description: String {
        switch self {
        case .invalidSignedData(let error):
            error.description
        case .notASubscriptionTransaction:
            "not an auto-renewable subscription transaction with transactionId, originalTransactionId, productId, subscriptionGroupIdentifier, purchaseDate and signedDate"
        case .renewalWithoutSubscription:
            "renewal info without originalTransactionId or signedDate"
        case .appTransactionWithoutDate:
            "app transaction has no receiptCreationDate, so its age cannot be checked"
        case .appTransactionTooOld(let age, let maxAge):
            "app transaction was signed \(age) s ago; at most \(maxAge) s is accepted (send a fresh AppTransaction.shared)"
        case .appTransactionFromTheFuture:
            "app transaction's receiptCreationDate is in the future"
        }
    }
}
