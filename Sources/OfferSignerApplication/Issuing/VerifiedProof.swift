import OfferSignerCore
import OfferSignerStore

/// A `CustomerProof` whose signed data verified: the customer's subscription transaction and
/// app transaction, as far as the device sent them.
struct VerifiedProof: Sendable, Hashable {
    /// The verified subscription transaction, ready to store.
    var transaction: StoredTransaction?
    /// The transaction's `appTransactionId` (the app download of the customer's Apple Account).
    var transactionAppTransactionId: String?
    /// The verified app transaction.
    var appTransaction: JWSAppTransactionDecodedPayload?
    /// Whether the request's `deviceVerificationId` is the device the transaction was made
    /// for (``DeviceVerification``); nil when it cannot be told: no ID sent, or a transaction
    /// without `deviceVerification` and `deviceVerificationNonce` (one not from StoreKit).
    var deviceVerified: Bool?

    /// Whether the proof shows that the asking device holds the transaction, not only a copy
    /// of its JWS: its device verification matches, or a fresh app transaction (its age was
    /// checked on verifying) is of the transaction's app download.
    var showsPossession: Bool {
        guard transaction != nil else { return false }
        if deviceVerified == true { return true }
        if let downloaded = appTransaction?.appTransactionId, let bought = transactionAppTransactionId, downloaded == bought { return true }
        return false
    }

    /// The app downloads (`appTransactionId`) the proof names, from either JWS.
    var appDownloads: [String] { [transactionAppTransactionId, appTransaction?.appTransactionId].compactMap { $0 } }
}
