import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension RetentionRefusal: HTTPResponseError {
    /// 400 `invalid_signed_data` for a request that does not verify; 503 when the offer could
    /// not be logged or the database cannot be reached. Either way the App Store shows its default message.
    public var problem: HTTPProblem {
        switch self {
        case .invalidSignedData(let error):
            HTTPProblem(status: 400, code: "invalid_signed_data", title: "Invalid signed data", detail: error.description)
        case .outsideWindow(let signedDate, let maxAge):
            HTTPProblem(status: 400, code: "stale_request", title: "Request outside the accepted window",
                        detail: "the request was signed at \(RFC3339.string(from: Date(milliseconds: signedDate))); "
                            + "requests are answered within \(maxAge) s of their signedDate (and at most 60 s ahead of this clock)")
        case .identifierReused(let identifier):
            HTTPProblem(status: 409, code: "request_identifier_reused", title: "Request identifier reused",
                        detail: "requestIdentifier \(identifier) was answered for another subscription of this app; a repeat must be the same request")
        case .logUnavailable:
            .unavailable("the offer's signature could not be recorded, so none was issued",
                         retryAfterSeconds: DatabaseUnavailable.retryAfterSeconds)
        case .signingKeyUnavailable:
            SigningKeyUnavailable.problem
        case .storeUnavailable:
            .unavailable("the database is unavailable, so the request was not answered",
                         retryAfterSeconds: DatabaseUnavailable.retryAfterSeconds)
        case .internalFailure:
            .internalError(requestId: "")
        }
    }

    /// An internal failure is reported and answered like any unexpected error.
    public var unexpectedCause: (any Error)? {
        if case .internalFailure(let cause) = self { return cause }
        return nil
    }
}
