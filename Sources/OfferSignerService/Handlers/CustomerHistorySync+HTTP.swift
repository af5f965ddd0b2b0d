import AppStoreServerAPI
import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

extension CustomerHistorySync.Failure: HTTPResponseError {
    /// The answer of the history refresh: 404 for a transaction the App Store does not know,
    /// 503 when the API is not usable or rate-limits us, 502 when Apple fails or sends data that
    /// does not verify.
    package var problem: HTTPProblem {
        switch self {
        case .notFound:
            return .notFound(description)
        case .unavailable:
            return .unavailable(description)
        case .api(.rateLimited(let retryAfter)):
            let seconds = retryAfter.map { Int($0.timeIntervalSinceNow.rounded(.up)) } ?? 60
            var problem = HTTPProblem.unavailable(description)
            problem.headers.set("Retry-After", String(max(1, seconds)))
            return problem
        case .api(.invalidArgument):
            return .invalidRequest(description)
        case .deadlinePassed:
            return .unavailable(description)
        case .api, .refused, .tooLarge:
            return HTTPProblem(status: 502, code: "appstore_api_failed", title: "App Store Server API failed", detail: description)
        }
    }
}
