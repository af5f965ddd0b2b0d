import Foundation

/// Why an App Store Server API call failed.
///
/// The ``description`` is meant for operators: it names the key, the transaction or the
/// status, never the token.
public enum AppStoreServerAPIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call was refused before anything was sent (e.g. a transaction ID that is not digits).
    case invalidArgument(String)
    /// 401: Apple refused the JWT made with this key.
    case unauthorized(keyId: String, issuerId: String, bundleId: String)
    /// 404 `TransactionIdNotFoundError` (4040010): Apple knows no such transaction for the app.
    case transactionNotFound(transactionId: String)
    /// 429 `RateLimitExceededError` (4290000) after the allowed retries, or with a `Retry-After`
    /// further away than the policy waits; nil when Apple named no instant.
    case rateLimited(retryAfter: Date?)
    /// A 5xx (or a retryable 404) answer, still failing after `attempts` attempts.
    case serverError(status: Int, errorCode: Int64?, errorMessage: String?, attempts: Int)
    /// Any other answer that is not a success (400 bad request, other 404s, 403, ...).
    case requestRejected(status: Int, errorCode: Int64?, errorMessage: String?)
    /// Every one of `attempts` attempts ran past the configured timeout.
    case timedOut(after: Duration, attempts: Int)
    /// No HTTP answer (name resolution, connection, TLS) after `attempts` attempts.
    case transportFailed(String, attempts: Int)
    /// A success answer whose body is not what Apple documents.
    case malformedResponse(String)
    /// The request's JWT could not be signed.
    case tokenSigningFailed(String)

    /// Whether trying the same call later may succeed (rate limit, server error, timeout,
    /// connection failure), as opposed to a refusal that will stand.
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .serverError, .timedOut, .transportFailed: true
        case .invalidArgument, .unauthorized, .transactionNotFound, .requestRejected, .malformedResponse, .tokenSigningFailed: false
        }
    }

    public var description: String {
        switch self {
        case .invalidArgument(let reason):
            "App Store Server API request refused before sending: \(reason)"
        case .unauthorized(let keyId, let issuerId, let bundleId):
            "the App Store Server API refused the token signed with key \(keyId) (issuer \(issuerId), bundle \(bundleId)) "
                + "with 401: check that the key ID and issuer ID match App Store Connect, that the key is an In-App "
                + "Purchase key of this team and is not revoked, and that this machine's clock is right"
        case .transactionNotFound(let transactionId):
            "the App Store knows no transaction \(transactionId) for this app (4040010)"
        case .rateLimited(let retryAfter):
            "the App Store Server API rate limit was exceeded (4290000)"
                + (retryAfter.map { "; Apple accepts requests again at \(ISO8601DateFormatter().string(from: $0))" } ?? "")
        case .serverError(let status, let errorCode, let errorMessage, let attempts):
            "the App Store Server API answered \(status)\(Self.detail(errorCode, errorMessage)) "
                + "\(attempts == 1 ? "to the only attempt" : "to each of \(attempts) attempts")"
        case .requestRejected(let status, let errorCode, let errorMessage):
            "the App Store Server API rejected the request with \(status)\(Self.detail(errorCode, errorMessage))"
        case .timedOut(let after, let attempts):
            "the App Store Server API did not answer within \(after) "
                + "\(attempts == 1 ? "(one attempt)" : "on any of \(attempts) attempts")"
        case .transportFailed(let reason, let attempts):
            "could not reach the App Store Server API (\(reason)) "
                + "\(attempts == 1 ? "(one attempt)" : "on any of \(attempts) attempts")"
        case .malformedResponse(let reason):
            "the App Store Server API sent an unexpected response: \(reason)"
        case .tokenSigningFailed(let reason):
            "could not sign the App Store Server API token: \(reason)"
        }
    }

    private static func detail(_ errorCode: Int64?, _ errorMessage: String?) -> String {
        switch (errorCode, errorMessage) {
        case let (code?, message?): " (\(code): \(message))"
        case let (code?, nil): " (\(code))"
        case let (nil, message?): " (\(message))"
        case (nil, nil): ""
        }
    }
}
