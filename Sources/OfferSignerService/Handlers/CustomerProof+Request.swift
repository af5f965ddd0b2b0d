import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension CustomerProof {
    /// Checks a request's `userId` together with the proof it carries: an empty user ID only
    /// with a `signedTransaction` (a customer without an app account token), any other within
    /// the user ID rules, no proof field sent empty, and a `deviceVerificationId` only as a UUID
    /// beside the `signedTransaction` it is checked against.
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
        if let deviceVerificationId {
            guard deviceVerificationId.utf8.count == 36, UUID(uuidString: deviceVerificationId) != nil else {
                throw .invalidRequest("'deviceVerificationId' must be a UUID (AppStore.deviceVerificationID)")
            }
            guard signedTransaction != nil else {
                throw .invalidRequest("'deviceVerificationId' is checked against a 'signedTransaction': send it with one")
            }
        }
    }
}
