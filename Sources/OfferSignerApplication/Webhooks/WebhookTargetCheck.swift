import Foundation

/// A lane's last check of its webhook's URL (``WebhookURLPolicy/target(_:)``: the URL parsed,
/// its host resolved, every address allowed), used for the posts that follow within
/// ``recheckAfter``: a claim's deliveries go one after another to one URL, and checking it for
/// each (a URL parse, a resolution) cost the lane more CPU than its HMAC (issue 37's profile).
/// A new connection still goes only to the address this check found (the pin), so a name that
/// answers another address later (DNS rebinding) reaches nothing but what was checked; a
/// refusal holds for as long as a success would.
struct WebhookTargetCheck {
    /// How long one check serves the posts of its URL.
    static let recheckAfter: Duration = .seconds(1)

    private var last: (url: String, at: ContinuousClock.Instant, result: Result<WebhookTarget, WebhookURLRefusal>)?

    /// The target of `url`: the last check's, when it was of this URL less than ``recheckAfter``
    /// ago; else checked now with `policy`.
    mutating func target(_ url: String, policy: WebhookURLPolicy,
                         now: ContinuousClock.Instant = .now) throws(WebhookURLRefusal) -> WebhookTarget {
        if let last, last.url == url, now - last.at < Self.recheckAfter { return try last.result.get() }
        let result = Result { () throws(WebhookURLRefusal) -> WebhookTarget in try policy.target(url) }
        last = (url, now, result)
        return try result.get()
    }
}
