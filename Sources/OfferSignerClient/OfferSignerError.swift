import Foundation

/// Why a call to offer-signer gave no answer: each refusal the service documents, as a case an
/// app can switch over to tell the customer something better than a generic failure.
public enum OfferSignerError: Error, Sendable, Equatable {
    /// `403 not_eligible`: the customer does not meet the offer's rules; one reason per failed
    /// criterion. Show "This offer is not available for your account".
    case notEligible(reasons: [EligibilityReason], detail: String)
    /// `403 experiment_control`: the customer is in an arm of the experiment running on the
    /// placement that shows no offer (a no-offer control). Show the moment without an offer.
    case experimentControl(experimentID: String, armID: String, detail: String)
    /// `403 proof_required`: the API key is shipped in apps and the request carried no
    /// `signedTransaction` (see ``CustomerProof``). A programming error in the app.
    case proofRequired(detail: String)
    /// `403 proof_mismatch`: the proof is of another app, environment, app account token,
    /// transaction or app download than the request names.
    case proofMismatch(detail: String)
    /// `400 invalid_signed_data`: the proof did not verify as App Store signed data (for
    /// instance sandbox data sent as Production); `detail` names the field.
    case invalidSignedData(detail: String)
    /// `403 consent_rescinded`: a parent or guardian withdrew consent for this customer's use
    /// of the app; no offer is signed for them.
    case consentRescinded(detail: String)
    /// `429 rate_limited`: too many requests for this user, key or offer; try again after
    /// `retryAfter` seconds (the `Retry-After` header; `nil` when the service sent none).
    case rateLimited(retryAfter: TimeInterval?, detail: String)
    /// `503 unavailable` (or no answer from a busy service) on every attempt until the
    /// ``RetryPolicy``'s deadline: nothing was signed. `attempts` counts the requests sent.
    case unavailable(attempts: Int, detail: String)
    /// `400 invalid_request`: the request is malformed or names something the service refuses
    /// (an environment it does not accept, an invalid user ID …); `detail` says what.
    case invalidRequest(detail: String)
    /// `404 not_found`: no such app, offer, or the offer is not for this product.
    case notFound(detail: String)
    /// `401 unauthorized`: the API key is missing or unknown.
    case unauthorized(detail: String)
    /// `403 forbidden`: the API key's role may not call this route.
    case forbidden(detail: String)
    /// Any other answer: an HTTP status and, when the body was a problem document, its code.
    case unexpectedResponse(status: Int, code: String?, detail: String)
    /// The request did not reach the service or its answer did not arrive (no network, DNS,
    /// TLS, connection reset, timeout); the description of the underlying error.
    case transport(description: String)
}
