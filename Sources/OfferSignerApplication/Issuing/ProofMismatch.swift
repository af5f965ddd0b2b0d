import OfferSignerCore

/// How verified proof disagrees with the sign request it came with.
public enum ProofMismatch: Sendable, Hashable, CustomStringConvertible {
    /// The proof is of another configured app than the request's.
    case otherApp(CustomerProof.Field)
    /// The proof comes from another App Store environment than the request names.
    case otherEnvironment(CustomerProof.Field, proof: String?, request: AppStoreEnvironment)
    /// The transaction carries an app account token other than the request's `userId`.
    case otherUser
    /// The request's `transactionId` is neither the proven transaction nor its original.
    case otherTransaction
    /// The transaction and the app transaction are of different app downloads (`appTransactionId`).
    case otherAppDownload
    /// The request's `deviceVerificationId` is not the device the transaction was made for:
    /// the JWS is a copy from another device.
    case otherDevice

    public var description: String {
        switch self {
        case .otherApp(let field):
            "\(field.rawValue) is for another app than the request's"
        case .otherEnvironment(let field, let proof, let request):
            "\(field.rawValue) comes from the \(proof ?? "(absent)") environment, the request names \(request.rawValue)"
        case .otherUser:
            "signedTransaction carries another appAccountToken than the request's userId"
        case .otherTransaction:
            "transactionId is neither signedTransaction's transactionId nor its originalTransactionId"
        case .otherAppDownload:
            "signedTransaction and signedAppTransaction name different appTransactionIds"
        case .otherDevice:
            "deviceVerificationId is not the device signedTransaction was made for (its deviceVerification does not match)"
        }
    }
}
