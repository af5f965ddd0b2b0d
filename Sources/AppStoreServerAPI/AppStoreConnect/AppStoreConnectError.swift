import Foundation

/// Why an App Store Connect API call failed. The ``description`` names the key, the status and
/// Apple's `errors[]`, never the token.
public enum AppStoreConnectError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call was refused before anything was sent.
    case invalidArgument(String)
    /// 401: Apple refused the JWT made with this key.
    case unauthorized(keyId: String, issuerId: String, errors: [AppStoreConnectErrorItem])
    /// Any other 4xx answer (400, 403, 404, 409, 422 …) with Apple's `errors[]`.
    case rejected(status: Int, errors: [AppStoreConnectErrorItem])
    /// 429 `RATE_LIMIT_EXCEEDED` after the allowed retries; nil when Apple named no instant.
    case rateLimited(retryAfter: Date?, errors: [AppStoreConnectErrorItem])
    /// Apple's hourly allowance for the key (`X-Rate-Limit`) is down to the reserve: nothing sent.
    case hourlyAllowanceSpent(limit: Int?, remaining: Int)
    /// A 5xx answer, still failing after `attempts` attempts.
    case serverError(status: Int, errors: [AppStoreConnectErrorItem], attempts: Int)
    /// Every one of `attempts` attempts ran past the configured timeout.
    case timedOut(after: Duration, attempts: Int)
    /// No HTTP answer (name resolution, connection, TLS) after `attempts` attempts.
    case transportFailed(String, attempts: Int)
    /// A success answer that is not what Apple documents (or a listing past its bounds).
    case malformedResponse(String)
    /// The request's JWT could not be signed.
    case tokenSigningFailed(String)

    /// Whether trying later may succeed (rate limits, server errors, timeouts, connection failures).
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .hourlyAllowanceSpent, .serverError, .timedOut, .transportFailed: true
        case .invalidArgument, .unauthorized, .rejected, .malformedResponse, .tokenSigningFailed: false
        }
    }

    /// Apple's HTTP status, when Apple answered with an error.
    public var status: Int? {
        switch self {
        case .unauthorized: 401
        case .rejected(let status, _), .serverError(let status, _, _): status
        case .rateLimited: 429
        default: nil
        }
    }

    /// Apple's `errors[]`, when Apple answered with an error.
    public var appleErrors: [AppStoreConnectErrorItem] {
        switch self {
        case .unauthorized(_, _, let errors), .rejected(_, let errors), .rateLimited(_, let errors), .serverError(_, let errors, _): errors
        default: []
        }
    }

    public var description: String {
        switch self {
        case .invalidArgument(let reason):
            "App Store Connect API request refused before sending: \(reason)"
        case .unauthorized(let keyId, let issuerId, let errors):
            "the App Store Connect API refused the token signed with key \(keyId) (issuer \(issuerId)) with 401\(Self.list(errors)): "
                + "check that appStoreConnect's keyId and issuerId match a Team key (Users and Access → Integrations → Team Keys, "
                + "not an In-App Purchase key), that it is not revoked, and that this machine's clock is right"
        case .rejected(let status, let errors):
            "the App Store Connect API rejected the request with \(status)\(Self.list(errors))"
        case .rateLimited(let retryAfter, let errors):
            "the App Store Connect API rate limit was exceeded (429\(Self.list(errors)))"
                + (retryAfter.map { "; Apple accepts requests again at \(ISO8601DateFormatter().string(from: $0))" } ?? "")
        case .hourlyAllowanceSpent(let limit, let remaining):
            "the App Store Connect API key has \(remaining) requests left of its hourly allowance\(limit.map { " of \($0)" } ?? "") "
                + "(X-Rate-Limit); nothing more is sent for a minute"
        case .serverError(let status, let errors, let attempts):
            "the App Store Connect API answered \(status)\(Self.list(errors)) "
                + "\(attempts == 1 ? "to the only attempt" : "to each of \(attempts) attempts")"
        case .timedOut(let after, let attempts):
            "the App Store Connect API did not answer within \(after) \(attempts == 1 ? "(one attempt)" : "on any of \(attempts) attempts")"
        case .transportFailed(let reason, let attempts):
            "could not reach the App Store Connect API (\(reason)) \(attempts == 1 ? "(one attempt)" : "on any of \(attempts) attempts")"
        case .malformedResponse(let reason):
            "the App Store Connect API sent an unexpected response: \(reason)"
        case .tokenSigningFailed(let reason):
            "could not sign the App Store Connect API token: \(reason)"
        }
    }

    private static func list(_ errors: [AppStoreConnectErrorItem]) -> String {
        errors.isEmpty ? "" : " (" + errors.map(\.description).joined(separator: "; ") + ")"
    }
}
