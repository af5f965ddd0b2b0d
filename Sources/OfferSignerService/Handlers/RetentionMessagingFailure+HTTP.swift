import AppStoreServerAPI
import OfferSignerApplication
import OfferSignerHTTP

extension RetentionMessagingFailure: HTTPResponseError {
    /// 400 for what is refused before sending; Apple's own refusals of the caller's request with
    /// Apple's words (400 bad request, 404 unknown message/image/default/test, 409 already
    /// exists or not allowed in the current state); 502 naming Apple's `errorCode` and message
    /// when Apple fails or cannot be reached; 503 when the API is not usable or rate-limits us.
    public var problem: HTTPProblem {
        switch self {
        case .invalid(let problems):
            return .invalidRequest(listing: problems)
        case .unavailable(.unknownApp):
            return .notFound(description)
        case .unavailable(.environmentNotAccepted):
            return .invalidRequest(description)
        case .unavailable:
            return .unavailable(description)
        case .notRecorded:
            return .unavailable(description)
        case .api(let error):
            return Self.problem(for: error)
        }
    }

    static func problem(for error: AppStoreServerAPIError) -> HTTPProblem {
        switch error {
        case .invalidArgument(let reason):
            return .invalidRequest(reason)
        case .transactionNotFound:
            return apple(404, "not_found", "Not found", error, code: ErrorPayload.transactionIdNotFound, message: nil)
        case .rateLimited(let retryAfter):
            let seconds = retryAfter.map { Int($0.timeIntervalSinceNow.rounded(.up)) } ?? 60
            return .unavailable(error.description, retryAfterSeconds: max(1, seconds))
        case .requestRejected(let status, let code?, let message) where callerFaults.contains(status):
            switch status {
            case 400: return apple(400, "invalid_request", "Invalid request", error, code: code, message: message)
            case 404 where notFoundCodes.contains(code): return apple(404, "not_found", "Not found", error, code: code, message: message)
            case 403, 409: return apple(409, "conflict", "Conflict", error, code: code, message: message)
            default: return apple(502, "appstore_api_failed", "App Store Server API failed", error, code: code, message: message)
            }
        case .requestRejected(_, let code, let message), .serverError(_, let code, let message, _):
            return apple(502, "appstore_api_failed", "App Store Server API failed", error, code: code, message: message)
        case .unauthorized, .timedOut, .transportFailed, .malformedResponse, .tokenSigningFailed:
            return apple(502, "appstore_api_failed", "App Store Server API failed", error, code: nil, message: nil)
        }
    }

    /// Statuses whose Apple error codes say the caller asked for something wrong.
    static let callerFaults: Set<Int> = [400, 403, 404, 409]

    /// Apple's "no such thing" codes: image (4040014), message (4040015), performance test
    /// run (4040018), default message (4040020), real-time URL (4040021).
    static let notFoundCodes: Set<Int64> = [4040014, 4040015, 4040018, 4040020, 4040021, ErrorPayload.transactionIdNotFound]

    private static func apple(_ status: Int, _ code: String, _ title: String, _ error: AppStoreServerAPIError, code appleCode: Int64?,
                              message: String?) -> HTTPProblem {
        var extensions: [String: any Encodable & Sendable] = [:]
        if let appleCode { extensions["appleErrorCode"] = appleCode }
        if let message { extensions["appleErrorMessage"] = message }
        let detail = status == 502 ? error.description
            : "Apple refused the request" + (message.map { ": \($0)" } ?? "") + (appleCode.map { " (\($0))" } ?? "")
        return HTTPProblem(status: status, code: code, title: title, detail: detail, extensions: extensions)
    }
}
