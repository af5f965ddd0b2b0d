import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

extension SignedItemRefusal: HTTPResponseError {
    /// 400 `invalid_signed_data`: nothing was stored.
    public var problem: HTTPProblem {
        HTTPProblem(status: 400, code: "invalid_signed_data", title: "Invalid signed data", detail: description)
    }
}
