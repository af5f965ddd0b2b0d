import Foundation
import Synchronization

/// Token buckets keyed by caller (API key, user, address): each key may spend `capacity`
/// requests at once and regains `capacity` per `period`. Idle buckets are dropped, so memory
/// stays bounded by the keys active within one period.
public final class TokenBucketLimiter: Sendable {
    public let rate: RateLimit
    private let state = Mutex(Buckets())

    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    /// The buckets of the keys seen lately, and when idle ones were last dropped.
    private struct Buckets {
        var byKey: [String: Bucket] = [:]
        var lastSweep: TimeInterval = 0
    }

    public init(rate: RateLimit) {
        self.rate = rate
    }

    /// Takes `cost` tokens (one by default; at most the bucket's capacity) for `key` at `now`
    /// (seconds, any monotonic origin). Returns nil when allowed, or the whole seconds until
    /// that many are available; nothing is taken then.
    public func take(_ key: String, cost: Int = 1, now: TimeInterval) -> Int? {
        let rate = self.rate
        return state.withLock { state in
            Self.sweep(&state, now: now, period: rate.period)
            let capacity = Double(rate.count)
            let perSecond = capacity / rate.period
            let needed = min(Double(max(cost, 1)), capacity)
            var bucket = state.byKey[key] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updated) * perSecond)
            bucket.updated = now
            if bucket.tokens >= needed {
                bucket.tokens -= needed
                state.byKey[key] = bucket
                return nil
            }
            state.byKey[key] = bucket
            return max(1, Int(((needed - bucket.tokens) / perSecond).rounded(.up)))
        }
    }

    /// Drops buckets that have refilled completely (their state equals a fresh bucket).
    private static func sweep(_ state: inout Buckets, now: TimeInterval, period: TimeInterval) {
        guard now - state.lastSweep >= period else { return }
        state.lastSweep = now
        state.byKey = state.byKey.filter { now - $0.value.updated < period }
    }
}

/// `count` requests per `period` seconds, written `30/m`, `1000/s`, `500/h`.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public let count: Int
    public let period: TimeInterval

    /// Parses `N/s`, `N/m` or `N/h`; nil for `off` (no limit). Throws on anything else.
    public static func parse(_ text: String) throws(SettingsError) -> RateLimit? {
        if text == "off" { return nil }
        let parts = text.split(separator: "/")
        let periods: [Substring: TimeInterval] = ["s": 1, "m": 60, "h": 3600]
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let period = periods[parts[1]] else {
            throw .invalidValue(setting: "", value: text, expected: "a rate such as 30/m, 1000/s or off")
        }
        return RateLimit(count: count, period: period)
    }

    public var description: String {
        "\(count)/\(period == 1 ? "s" : period == 60 ? "m" : "h")"
    }
}
