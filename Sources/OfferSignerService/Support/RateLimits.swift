import Foundation
import OfferSignerApplication
import OfferSignerHTTP

/// The abuse limits of the service, each optional (nil: no limit).
public struct RateLimits: Sendable {
    /// Signing requests per API key.
    public var signPerAPIKey: TokenBucketLimiter?
    /// Signing requests per user (app account token).
    public var signPerUser: TokenBucketLimiter?
    /// Notification requests per client address (the endpoint needs no token).
    public var notificationsPerAddress: TokenBucketLimiter?

    public init(signPerAPIKey: RateLimit? = nil, signPerUser: RateLimit? = nil, notificationsPerAddress: RateLimit? = nil) {
        self.signPerAPIKey = signPerAPIKey.map(TokenBucketLimiter.init)
        self.signPerUser = signPerUser.map(TokenBucketLimiter.init)
        self.notificationsPerAddress = notificationsPerAddress.map(TokenBucketLimiter.init)
    }

    /// No limits (for tests that are not about them).
    public static let none = RateLimits()

    /// Throws 429 `rate_limited` with `Retry-After` when `limiter` has fewer than `cost`
    /// tokens (one by default) left for `key`.
    static func check(_ limiter: TokenBucketLimiter?, _ key: String, cost: Int = 1, what: String) throws(HTTPProblem) {
        guard let limiter else { return }
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        if let retry = limiter.take(key, cost: cost, now: now) {
            throw .rateLimited("too many \(what) (limit \(limiter.rate)); retry in \(retry) s", retryAfterSeconds: retry)
        }
    }
}
