import OfferSignerHTTP

/// The body of the App Store's own requests (notifications, retention messages):
/// `{"signedPayload": "<JWS>"}`, members Apple may add ignored. The JWS is the credential.
struct SignedPayloadBody: Decodable {
    let signedPayload: String

    /// The request's signed payload, once its address is within the per-address limit of App
    /// Store requests (`what` names them in the refusal).
    static func read(_ request: HTTPRequest, rateLimits: RateLimits, what: String) throws(HTTPProblem) -> String {
        try RateLimits.check(rateLimits.notificationsPerAddress, request.remoteAddress, what: what)
        return try request.decodeJSON(Self.self, strictKeys: false).signedPayload
    }
}
