import Foundation

/// The difference of two return rates (treated − holdout) with its 95 % confidence interval.
///
/// The interval is Newcombe's hybrid score interval (his method 10) built from the two Wilson
/// score intervals: better than the plain normal approximation for small groups and for rates
/// near 0 or 1, where the Wald interval collapses to a point.
public struct LiftEstimate: Codable, Hashable, Sendable {
    /// Treated rate minus holdout rate, as a fraction (0.08 is 8 points).
    public var difference: Double
    public var low: Double
    public var high: Double

    /// z for a two-sided 95 % interval.
    static let z = 1.959963984540054

    /// The lift of `treatedReturned` of `treated` over `holdoutReturned` of `holdout`; nil
    /// when either group is empty.
    public static func estimate(treated: Int, treatedReturned: Int, holdout: Int, holdoutReturned: Int) -> LiftEstimate? {
        guard treated > 0, holdout > 0 else { return nil }
        let p1 = Double(treatedReturned) / Double(treated)
        let p2 = Double(holdoutReturned) / Double(holdout)
        let (l1, u1) = wilson(successes: treatedReturned, trials: treated)
        let (l2, u2) = wilson(successes: holdoutReturned, trials: holdout)
        let difference = p1 - p2
        let low = difference - ((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2)).squareRoot()
        let high = difference + ((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2)).squareRoot()
        return LiftEstimate(difference: difference, low: max(-1, low), high: min(1, high))
    }

    /// The Wilson score interval of a proportion.
    static func wilson(successes: Int, trials: Int) -> (low: Double, high: Double) {
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / (1 + z2 / n)
        return (max(0, centre - half), min(1, centre + half))
    }
}
