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

    /// The app downloads (`appTransactionId`) the proof names, from either JWS.
    var appDownloads: [String] { [transactionAppTransactionId, appTransaction?.appTransactionId].compactMap { $0 } }
}
