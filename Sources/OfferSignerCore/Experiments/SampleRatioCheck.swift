import Foundation

/// The sample-ratio-mismatch check: whether the users assigned to each arm fit the arms'
/// weights (Pearson's chi-square goodness of fit). A mismatch means assignment or
/// recording is broken, and no difference the experiment shows can be trusted.
public struct SampleRatioCheck: Codable, Hashable, Sendable {
    /// Pearson's statistic over the arms of positive weight.
    public var chiSquare: Double
    public var pValue: Double
    /// Users found in arms whose weight was 0, where none can be assigned.
    public var unexpectedUsers = 0
    /// Below this p-value the mismatch is flagged.
    public static let threshold = 0.001

    /// Whether the counts do not fit the weights.
    public var mismatch: Bool { pValue < Self.threshold || unexpectedUsers > 0 }

    /// The check of `assigned` (users per arm) against `weights`, each arm's expected share in
    /// the same order and any positive scale (for an experiment whose weights changed, the
    /// users-weighted mix of its weight periods); nil with fewer than two arms of positive
    /// weight or no users in them.
    public static func check(assigned: [Int], weights: [Double]) -> SampleRatioCheck? {
        guard assigned.count == weights.count else { return nil }
        let arms = zip(assigned, weights).filter { $0.1 > 0 }
        let total = arms.reduce(0) { $0 + $1.0 }
        let weightSum = arms.reduce(0) { $0 + $1.1 }
        guard arms.count > 1, total > 0 else { return nil }
        let chiSquare = arms.reduce(0.0) { sum, arm in
            let expected = Double(total) * arm.1 / weightSum
            let gap = Double(arm.0) - expected
            return sum + gap * gap / expected
        }
        let unexpected = zip(assigned, weights).filter { $0.1 <= 0 }.reduce(0) { $0 + $1.0 }
        return SampleRatioCheck(chiSquare: chiSquare, pValue: ChiSquareDistribution.survival(chiSquare, degreesOfFreedom: arms.count - 1),
                                unexpectedUsers: unexpected)
    }
}
