import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension CustomerProof {
    /// Checks a request's `userId` together with the proof it carries: an empty user ID only
    /// with a `signedTransaction` (a customer without an app account token), any other within
    /// the user ID rules, and no proof field sent empty.
    func validate(userId: String) throws(HTTPProblem) {
        if userId.isEmpty {
            guard signedTransaction != nil else {
                throw .invalidRequest("'userId' may be empty only with a 'signedTransaction' (a customer without an app account token)")
            }
        } else if let refusal = InputRules.userIdRefusal(userId, field: "'userId'") {
            throw .invalidRequest(refusal)
        }
        for (name, value) in [("signedTransaction", signedTransaction), ("signedAppTransaction", signedAppTransaction)] {
            if let value, value.isEmpty { throw .invalidRequest("'\(name)' must be a compact JWS, not empty") }
        }
    }
}
