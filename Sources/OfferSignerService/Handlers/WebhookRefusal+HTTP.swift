import OfferSignerApplication
import OfferSignerHTTP

extension WebhookRefusal: HTTPResponseError {
    public var problem: HTTPProblem {
        switch self {
        case .invalid(let problems):
            .invalidRequest(listing: problems)
        case .urlRefused(let reason):
            HTTPProblem(status: 400, code: "webhook_url_refused", title: "Webhook URL refused", detail: reason)
        case .notFound, .deliveryNotFound:
            .notFound(description)
        }
    }
}
