import Foundation

/// Apple's hourly allowance for a key, as the last answer's `X-Rate-Limit` header gave it:
/// `user-hour-lim:3600;user-hour-rem:3542;`.
///
/// [Identifying rate limits](https://developer.apple.com/documentation/appstoreconnectapi/identifying-rate-limits)
public struct AppStoreConnectRateLimit: Hashable, Sendable {
    /// Requests allowed per hour (`user-hour-lim`), when Apple said.
    public var limit: Int?
    /// Requests left in the hour (`user-hour-rem`).
    public var remaining: Int

    public init(limit: Int?, remaining: Int) {
        self.limit = limit
        self.remaining = remaining
    }

    /// The allowance in an `X-Rate-Limit` value; nil when it names no `user-hour-rem`.
    public init?(header: String?) {
        guard let header else { return nil }
        var limit: Int?
        var remaining: Int?
        for part in header.split(separator: ";") {
            let pair = part.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let value = Int(pair[1]), value >= 0 else { continue }
            switch pair[0].lowercased() {
            case "user-hour-lim": limit = value
            case "user-hour-rem": remaining = value
            default: continue
            }
        }
        guard let remaining else { return nil }
        self.init(limit: limit, remaining: remaining)
    }
}
