import Foundation

/// The chi-square distribution's upper tail, through the regularised incomplete gamma
/// function (series below a + 1, Lentz's continued fraction above; Numerical Recipes §6.2).
public enum ChiSquareDistribution {
    /// P(X ≥ statistic) for X chi-square with `degreesOfFreedom`.
    public static func survival(_ statistic: Double, degreesOfFreedom: Int) -> Double {
        guard degreesOfFreedom > 0 else { return .nan }
        guard statistic > 0 else { return 1 }
        return upperRegularizedGamma(a: Double(degreesOfFreedom) / 2, x: statistic / 2)
    }

    /// Q(a, x) = Γ(a, x) / Γ(a).
    static func upperRegularizedGamma(a: Double, x: Double) -> Double {
        let logPrefix = -x + a * log(x) - lgamma(a)
        if x < a + 1 {
            var term = 1 / a, sum = term, n = a
            for _ in 0..<10_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-15 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        let tiny = 1e-300
        var b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d
        for i in 1...10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-15 { break }
        }
        return min(1, exp(logPrefix) * h)
    }
}
