/// One transaction, signed by the App Store.
///
/// [TransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse)
public struct TransactionInfoResponse: Decodable, Hashable, Sendable {
    /// The transaction, a JWS to verify like any signed data.
    public var signedTransactionInfo: String

    public init(signedTransactionInfo: String) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}
