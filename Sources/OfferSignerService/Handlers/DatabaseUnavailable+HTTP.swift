import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

extension DatabaseUnavailable: HTTPResponseError {
    /// Any endpoint whose store read or write found the database unreachable answers 503:
    /// the request may be retried once the database is back.
    public var problem: HTTPProblem {
        .unavailable("the database cannot be reached; retry later")
    }
}
