import Foundation

/// What an arm's users did on one metric, kept as the sufficient statistics of a mean: how
/// many users, the sum of their values and the sum of their squares.
///
/// For the retained rate a user's value is 1 (retained) or 0; for revenue it is the user's
/// net revenue, winsorised at the experiment's cap.
public struct MetricSample: Codable, Hashable, Sendable {
    public var count = 0
    public var sum = 0.0
    public var sumOfSquares = 0.0

    public init() {}

    /// Adds one user's value.
    public mutating func add(_ value: Double) {
        count += 1
        sum += value
        sumOfSquares += value * value
    }

    /// Adds every user of `other`.
    public mutating func add(_ other: MetricSample) {
        count += other.count
        sum += other.sum
        sumOfSquares += other.sumOfSquares
    }

    /// The mean value per user; 0 for an empty sample.
    public var mean: Double { count > 0 ? sum / Double(count) : 0 }

    /// The unbiased sample variance; 0 below two users.
    public var variance: Double {
        guard count > 1 else { return 0 }
        let n = Double(count)
        return max(0, (sumOfSquares - sum * sum / n) / (n - 1))
    }
}
