/// An App Store Server Notification whose signature, and those of the transaction, renewal
/// information and app transaction nested in it, have been verified.
public struct VerifiedNotification: Hashable, Sendable {
    /// The decoded notification.
    public let payload: ResponseBodyV2DecodedPayload
    /// The decoded `data.signedTransactionInfo`, when the notification carries one.
    public let transaction: JWSTransactionDecodedPayload?
    /// The decoded `data.signedRenewalInfo`, when the notification carries one.
    public let renewalInfo: JWSRenewalInfoDecodedPayload?
    /// The decoded `appData.signedAppTransactionInfo`, when the notification carries one.
    public let appTransaction: JWSAppTransactionDecodedPayload?

    public init(payload: ResponseBodyV2DecodedPayload, transaction: JWSTransactionDecodedPayload?,
                renewalInfo: JWSRenewalInfoDecodedPayload?, appTransaction: JWSAppTransactionDecodedPayload? = nil) {
        self.payload = payload
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }
}
