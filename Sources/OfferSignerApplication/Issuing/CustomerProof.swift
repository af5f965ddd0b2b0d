/// Apple-signed proof of who the customer is, as the device sent it (StoreKit 2): each JWS is
/// verified like a notification's signed data before anything is believed.
public struct CustomerProof: Sendable, Hashable {
    /// Which proof a refusal is about, by its field name in the sign request.
    public enum Field: String, Sendable, Hashable {
        case signedTransaction
        case signedAppTransaction
    }

    /// `Transaction.jwsRepresentation` of the customer's latest subscription transaction.
    public var signedTransaction: String?
    /// `AppTransaction.shared`'s `jwsRepresentation`.
    public var signedAppTransaction: String?
    /// `AppStore.deviceVerificationID` of the asking device (a UUID): with the transaction's
    /// `deviceVerification` and `deviceVerificationNonce` it shows the device holds the
    /// transaction, not only a copy of its JWS (``DeviceVerification``).
    public var deviceVerificationId: String?

    public init(signedTransaction: String? = nil, signedAppTransaction: String? = nil, deviceVerificationId: String? = nil) {
        self.signedTransaction = signedTransaction
        self.signedAppTransaction = signedAppTransaction
        self.deviceVerificationId = deviceVerificationId
    }
}
