import AppStoreServerAPI
import OfferSignerApplication
import OfferSignerHTTP

extension AppStoreOfferFailure: HTTPResponseError {
    /// 400 for what is refused before sending (fields, a price no price point has); 404 for an
    /// unknown app, a product or offer Apple does not have; 409 for Apple's own rules checked
    /// here (an offer code taken, 10 offers, an offer rules still name) and for Apple's 409;
    /// 422 for Apple's other refusals of the request; 502 when Apple fails, cannot be reached or
    /// refuses the key; 503 when Apple rate-limits the key. Apple's refusals name its `errors[]`
    /// (`appleErrors`: `status`, `code`, `title`, `detail`).
    public var problem: HTTPProblem {
        switch self {
        case .invalid(let problems):
            return .invalidRequest(listing: problems)
        case .unknownApp:
            return .notFound(description)
        case .notConfigured:
            return HTTPProblem(status: 409, code: "appstore_connect_not_configured", title: "App Store Connect not configured",
                               detail: description)
        case .productNotAtApple(_, let known):
            return HTTPProblem(status: 404, code: "product_not_at_apple", title: "No such subscription at Apple", detail: description,
                               extensions: ["products": known])
        case .offerNotFound(_, _, let existing):
            return HTTPProblem(status: 404, code: "promotional_offer_not_found", title: "No such promotional offer at Apple", detail: description,
                               extensions: ["promotionalOffers": existing])
        case .offerCodeTaken:
            return HTTPProblem(status: 409, code: "offer_code_taken", title: "Offer code taken", detail: description)
        case .limitReached(_, let count):
            return HTTPProblem(status: 409, code: "promotional_offer_limit", title: "Too many promotional offers", detail: description,
                               extensions: ["count": count])
        case .priceNotAvailable(_, _, let nearest):
            return HTTPProblem(status: 400, code: "price_not_available", title: "No such price point", detail: description,
                               extensions: ["nearest": nearest])
        case .notEqualized(let territories):
            return HTTPProblem(status: 400, code: "price_not_available", title: "No such price point", detail: description,
                               extensions: ["territories": territories])
        case .inUse(let offerIds):
            return HTTPProblem(status: 409, code: "offer_in_use", title: "Offer in use", detail: description, extensions: ["offerIds": offerIds])
        case .notRecorded:
            return .unavailable(description)
        case .apple(let error):
            return Self.problem(for: error)
        }
    }

    static func problem(for error: AppStoreConnectError) -> HTTPProblem {
        let items = error.appleErrors.map { ["status": $0.status, "code": $0.code, "title": $0.title, "detail": $0.detail ?? ""] }
        let extensions: [String: any Encodable & Sendable] = items.isEmpty ? [:] : ["appleErrors": items]
        switch error {
        case .invalidArgument(let reason):
            return .invalidRequest(reason)
        case .rejected(409, _):
            return HTTPProblem(status: 409, code: "appstore_connect_conflict", title: "App Store Connect refused the change",
                               detail: error.description, extensions: extensions)
        case .rejected(let status, _) where [400, 404, 422].contains(status):
            return HTTPProblem(status: 422, code: "appstore_connect_refused", title: "App Store Connect refused the request",
                               detail: error.description, extensions: extensions)
        case .rateLimited(let retryAfter, _):
            let seconds = retryAfter.map { Int($0.timeIntervalSinceNow.rounded(.up)) } ?? 60
            var problem = HTTPProblem.unavailable(error.description, retryAfterSeconds: max(1, seconds))
            problem.extensions = extensions
            return problem
        case .hourlyAllowanceSpent:
            return .unavailable(error.description, retryAfterSeconds: 60)
        default:
            return HTTPProblem(status: 502, code: "appstore_connect_failed", title: "App Store Connect failed", detail: error.description,
                               extensions: extensions)
        }
    }
}
