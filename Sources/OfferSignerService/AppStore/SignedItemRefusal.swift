import OfferSignerCore

/// Why signed App Store data was not taken into the history.
enum SignedItemRefusal: Error, Equatable, CustomStringConvertible {
    /// The JWS did not verify (chain, signature, app, environment, shape).
    case invalidSignedData(SignedDataError)
    /// A verified transaction that is not an auto-renewable subscription transaction with
    /// everything the history needs.
    case notASubscriptionTransaction
    /// Verified renewal info that names no subscription.
    case renewalWithoutSubscription

    var description: String {
        switch self {
        case .invalidSignedData(let error):
            error.description
        case .notASubscriptionTransaction:
            "not an auto-renewable subscription transaction with transactionId, originalTransactionId, productId, subscriptionGroupIdentifier, purchaseDate and signedDate"
        case .renewalWithoutSubscription:
            "renewal info without originalTransactionId or signedDate"
        }
    }
}
