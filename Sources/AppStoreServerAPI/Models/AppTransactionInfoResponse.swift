/// A customer's app transaction (their download of the app), signed by the App Store.
///
/// [AppTransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/apptransactioninforesponse)
public struct AppTransactionInfoResponse: Decodable, Hashable, Sendable {
    /// The app transaction, a JWS to verify like any signed data.
    public var signedAppTransactionInfo: String

    public init(signedAppTransactionInfo: String) {
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
