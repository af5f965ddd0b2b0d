import Foundation

extension AppStoreServerAPIClient {
    // MARK: Set App Account Token

    /// Sets the app account token of a purchase, or replaces the one it has (Apple does not
    /// refuse that: check first): `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`
    /// with `{"appAccountToken": "<uuid>"}` (`UpdateAppAccountTokenRequest`). For a subscription
    /// it applies to the current renewal transaction and the renewals after it, not to past ones.
    ///
    /// Apple's refusals come back as ``AppStoreServerAPIError/requestRejected(status:errorCode:errorMessage:)``
    /// with one of ``ErrorPayload/appAccountTokenRefusals``; a 5xx, a timeout or a 429 is retried
    /// under the client's policy, as every call is.
    ///
    /// - Parameter originalTransactionId: the purchase's original transaction ID (Apple refuses another with 4000187).
    public func setAppAccountToken(originalTransactionId: String, appAccountToken: UUID) throws(AppStoreServerAPIError) {
        try Self.checkTransactionId(originalTransactionId)
        let body = Array(#"{"appAccountToken":"\#(appAccountToken.uuidString.lowercased())"}"#.utf8)
        _ = try exchange(APIRequest(method: "PUT", path: "/inApps/v1/transactions/\(originalTransactionId)/appAccountToken", body: body),
                         transactionId: originalTransactionId)
    }

    // MARK: Get Transaction Info

    /// One transaction as the App Store holds it now (with the app account token it carries
    /// now): `GET /inApps/v1/transactions/{transactionId}`. Verify the JWS before trusting it.
    public func transactionInfo(transactionId: String) throws(AppStoreServerAPIError) -> TransactionInfoResponse {
        try Self.checkTransactionId(transactionId)
        return try send(APIRequest(method: "GET", path: "/inApps/v1/transactions/" + transactionId),
                        transactionId: transactionId, as: TransactionInfoResponse.self)
    }
}

extension ErrorPayload {
    /// `InvalidTransactionIdError`: the transaction ID is not one.
    public static let invalidTransactionId: Int64 = 4000006
    /// `InvalidAppAccountTokenUUIDError`: the token is not a UUID.
    public static let invalidAppAccountTokenUUID: Int64 = 4000183
    /// `FamilyTransactionNotSupportedError`: a Family Sharing transaction takes no token.
    public static let familyTransactionNotSupported: Int64 = 4000185
    /// `TransactionIdIsNotOriginalTransactionIdError`.
    public static let transactionIdIsNotOriginalTransactionId: Int64 = 4000187
    /// `OriginalTransactionIdNotFoundError` (404).
    public static let originalTransactionIdNotFound: Int64 = 4040005

    /// What Set App Account Token refuses for good: retrying changes nothing.
    public static let appAccountTokenRefusals: Set<Int64> = [
        invalidTransactionId, invalidAppAccountTokenUUID, familyTransactionNotSupported,
        transactionIdIsNotOriginalTransactionId, originalTransactionIdNotFound,
    ]
}
