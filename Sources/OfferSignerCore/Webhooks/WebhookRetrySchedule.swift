import Foundation

/// When a failed delivery is tried again: exponential backoff from ``firstDelay`` doubling up
/// to ``maxDelay``, each delay jittered by ±20 % (never outside those bounds), until
/// ``giveUpAfter`` since the event was queued, when it is dead-lettered.
public struct WebhookRetrySchedule: Sendable, Hashable {
    public var firstDelay: Duration
    public var maxDelay: Duration
    public var giveUpAfter: Duration
    /// How long a claimed delivery is reserved for this instance (longer than a delivery's timeout).
    public var lease: Duration

    public init(firstDelay: Duration, maxDelay: Duration, giveUpAfter: Duration, lease: Duration = .seconds(15)) {
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
        self.giveUpAfter = giveUpAfter
        self.lease = lease
    }

    /// 10 s … 1 h, for 72 h.
    public static let standard = WebhookRetrySchedule(firstDelay: .seconds(10), maxDelay: .seconds(3600), giveUpAfter: .seconds(72 * 3600))

    /// The delay before the try that follows failed try number `attempts` (1 for the first),
    /// `random` in 0..<1 choosing the jitter.
    public func delay(afterAttempts attempts: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        let first = Self.seconds(firstDelay), most = Self.seconds(maxDelay)
        let exponent = Double(min(max(attempts - 1, 0), 40))
        let base = min(first * pow(2, exponent), most)
        let jittered = base * (0.8 + 0.4 * random)
        return .milliseconds(Int64((min(max(jittered, first), most) * 1000).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
