/// The body of an App Store Server API error response.
///
/// [ErrorPayload](https://developer.apple.com/documentation/appstoreserverapi/error_codes)
public struct ErrorPayload: Decodable, Hashable, Sendable {
    /// Apple's numeric error code, e.g. 4040010.
    public var errorCode: Int64?
    /// Apple's description of the error.
    public var errorMessage: String?

    /// `TransactionIdNotFoundError`.
    public static let transactionIdNotFound: Int64 = 4040010
    /// `RateLimitExceededError`.
    public static let rateLimitExceeded: Int64 = 4290000
    /// `GeneralInternalError`.
    public static let generalInternal: Int64 = 5000000
    /// `GeneralInternalRetryableError`.
    public static let generalInternalRetryable: Int64 = 5000001
    /// Apple's "not found, but you can try again" errors: account (4040002), app (4040004),
    /// original transaction (4040006).
    public static let retryableNotFound: Set<Int64> = [4040002, 4040004, 4040006]
}
