import OfferSignerHTTP

/// The answer when the app's key is in a hardware module that cannot sign now (the token was
/// removed, the module or the network HSM behind it is down, every session is busy): 503
/// `signing_key_unavailable` with Retry-After, never a 500. The module's error goes to the
/// log, not to the caller.
enum SigningKeyUnavailable {
    /// Seconds a client should wait: a token put back or an HSM restarted is found at the next request.
    static let retryAfterSeconds = 2

    static var problem: HTTPProblem {
        var problem = HTTPProblem(status: 503, code: "signing_key_unavailable", title: "Signing key unavailable",
                                  detail: "the signing key's hardware module cannot sign now, so no signature was issued; retry later")
        problem.headers.set("Retry-After", String(retryAfterSeconds))
        return problem
    }
}
