import Foundation

/// The difference in a metric between a treatment arm and the control, with an always-valid
/// confidence sequence and p-value: the asymptotic confidence sequence of Waudby-Smith,
/// Arbour, Sinha, Kennedy and Ramdas (2021, "Time-uniform central limit theory and
/// asymptotic confidence sequences", eq. 13; GrowthBook's sequential engine uses the same).
///
/// For N users in the two arms, a difference d̂ whose variance is v, σ² = v·N and
///
///     d̂ ± σ · √( 2(Nρ² + 1) / (N²ρ²) · ln(√(Nρ² + 1) / α) ),
///     ρ² = (−2 ln α + ln(−2 ln α + 1)) / N*,
///
/// where N* (the tuning sample size) is where the interval is narrowest. Unlike a
/// fixed-horizon interval it covers the true difference at every look at once, so looking
/// every day and stopping when it excludes 0 keeps the error rate at α.
public struct ConfidenceSequence: Codable, Hashable, Sendable {
    /// Treatment mean minus control mean.
    public var difference: Double
    public var low: Double
    public var high: Double
    /// The always-valid p-value: below α exactly when the sequence at α excludes 0.
    public var pValue: Double

    /// Whether a difference is established: the sequence excludes 0.
    public var isEstablished: Bool { low > 0 || high < 0 }

    /// The sequence of `treatment` against `control` at level `alpha`, tuned for
    /// `tuningSampleSize` users; nil until each arm has two users.
    public static func compare(treatment: MetricSample, control: MetricSample, alpha: Double, tuningSampleSize: Int) -> ConfidenceSequence? {
        guard treatment.count > 1, control.count > 1, alpha > 0, alpha < 1, tuningSampleSize > 0 else { return nil }
        let difference = treatment.mean - control.mean
        let users = Double(treatment.count + control.count)
        let variance = treatment.variance / Double(treatment.count) + control.variance / Double(control.count)
        let scale = (variance * users).squareRoot()
        let half = scale * width(users: users, alpha: alpha, tuning: Double(tuningSampleSize))
        let pValue = alwaysValidPValue(difference: difference, variance: variance, users: users, alpha: alpha, tuning: Double(tuningSampleSize))
        return ConfidenceSequence(difference: difference, low: difference - half, high: difference + half, pValue: pValue)
    }

    /// ρ², which makes the sequence narrowest at `tuning` users (the paper's eq. 161).
    static func rhoSquared(alpha: Double, tuning: Double) -> Double {
        let logAlpha = -2 * log(alpha)
        return (logAlpha + log(logAlpha + 1)) / tuning
    }

    /// The half-width of the sequence at level `alpha` for a unit σ.
    static func width(users: Double, alpha: Double, tuning: Double) -> Double {
        let rho2 = rhoSquared(alpha: alpha, tuning: tuning)
        let nr = users * rho2
        return (2 * (nr + 1) / (users * users * rho2) * log((nr + 1).squareRoot() / alpha)).squareRoot()
    }

    /// The always-valid p-value (the paper's eq. 155): the reciprocal of the e-value
    /// √(Nρ² + 1)⁻¹ · exp(ρ² N d̂² / (2 v (Nρ² + 1))), at most 1. It falls below α exactly
    /// when the sequence at α excludes 0.
    static func alwaysValidPValue(difference: Double, variance: Double, users: Double, alpha: Double, tuning: Double) -> Double {
        guard difference != 0 else { return 1 }
        guard variance > 0 else { return 0 }
        let rho2 = rhoSquared(alpha: alpha, tuning: tuning)
        let nr1 = users * rho2 + 1
        let logEValue = rho2 * difference * difference * users / variance / (2 * nr1) - 0.5 * log(nr1)
        return min(1, exp(-logEValue))
    }
}
