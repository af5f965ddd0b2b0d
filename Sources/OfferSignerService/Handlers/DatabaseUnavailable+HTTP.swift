import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

extension DatabaseUnavailable: HTTPResponseError {
    /// Any endpoint whose store read or write found the database unavailable (unreachable, a
    /// table locked past the statement deadline, a conflict, out of resources) answers 503 with
    /// `Retry-After`: the request may be retried once the database is back.
    public var problem: HTTPProblem {
        .unavailable("the database is unavailable; retry later", retryAfterSeconds: Self.retryAfterSeconds)
    }

    /// The `Retry-After` of every answer the database's unavailability causes.
    static let retryAfterSeconds = 1
}
