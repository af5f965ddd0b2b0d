import Foundation

/// Adds up an experiment's assigned users, one at a time, into its results: the arms' counts,
/// the sample-ratio check, and each arm against the control with an always-valid confidence
/// sequence (``ConfidenceSequence``) at level 1 − α / m, m the number of comparisons
/// (Bonferroni: treatment arms × currencies compared for revenue). A retained rate's
/// difference and its interval lie in [−1, 1]: the interval is clipped to it (the asymptotic
/// sequence's normal approximation runs past it with few users).
public struct ExperimentTally: Sendable {
    public let experiment: Experiment
    /// The currencies revenue is compared in (those with a cap, fixed at start), sorted; the
    /// arms' revenue is reported in every currency, a currency without a cap not winsorised.
    public let currencies: [String]
    var arms: [ExperimentArmResult]
    private let armIndex: [String: Int]
    /// Per arm, the expected number of users from each user's weight period.
    private var expected: [Double]
    /// The matured users, for the sequences over time: by the end of the day (milliseconds)
    /// their horizon falls in, per arm, the sample of each value — the retained value (1 or
    /// 0), then the winsorised revenue in each of `currencies`. A day's users are looked at
    /// together at its end, so the sums are all the sequences need.
    private var daily: [Int64: [[MetricSample]]] = [:]

    public init(experiment: Experiment) {
        self.experiment = experiment
        currencies = experiment.revenueCaps.keys.sorted()
        arms = experiment.arms.map { ExperimentArmResult(armId: $0.armId, offerId: $0.offerId, weight: $0.weight) }
        armIndex = Dictionary(experiment.arms.enumerated().map { ($1.armId, $0) }, uniquingKeysWith: { a, _ in a })
        expected = Array(repeating: 0, count: experiment.arms.count)
    }

    /// The horizon of a user assigned at `assignedAt`, in milliseconds.
    public func horizon(assignedAt: Int64) -> Int64 {
        assignedAt + Int64(experiment.definition.horizonDays) * 86_400_000
    }

    /// Adds one assigned user; `outcome` and `revenue` are read only when the horizon has
    /// passed at `now` (milliseconds).
    public mutating func add(armId: String, weightPeriod: Int, assignedAt: Int64, eligible: Bool, signed: Bool, redeemed: Bool,
                             now: Int64, outcome: () -> (ExperimentUserOutcome, [String: Int64])) {
        guard let arm = armIndex[armId] else { return }
        let weights = experiment.weightPeriods.indices.contains(weightPeriod)
            ? experiment.weightPeriods[weightPeriod].weights : experiment.arms.map(\.weight)
        let total = weights.reduce(0) { $0 + max(0, $1) }
        if total > 0, weights.count == expected.count {
            for index in expected.indices { expected[index] += max(0, weights[index]) / total }
        }
        arms[arm].assigned += 1
        if eligible { arms[arm].eligible += 1 }
        if signed { arms[arm].signed += 1 }
        if redeemed { arms[arm].redeemed += 1 }
        let horizon = horizon(assignedAt: assignedAt)
        guard horizon <= now else {
            arms[arm].maturing += 1
            return
        }
        let (result, revenue) = outcome()
        arms[arm].matured += 1
        switch result {
        case .retained: arms[arm].retained += 1
        case .churned: arms[arm].churned += 1
        case .refunded: arms[arm].refunded += 1
        case .inOffer: arms[arm].inOffer += 1
        }
        for (currency, amount) in revenue where amount > 0 {
            arms[arm].revenue[currency, default: 0] += min(amount, experiment.revenueCaps[currency] ?? .max)
        }
        let day = (horizon / 86_400_000 + 1) * 86_400_000
        let armCount = arms.count, valueCount = 1 + currencies.count
        daily[day, default: Array(repeating: Array(repeating: MetricSample(), count: valueCount), count: armCount)][arm][0]
            .add(result == .retained ? 1 : 0)
        for (index, currency) in currencies.enumerated() {
            daily[day]![arm][index + 1].add(Double(min(revenue[currency] ?? 0, experiment.revenueCaps[currency] ?? .max)))
        }
    }

    /// The results at `now`.
    public func results(now: Date) -> ExperimentResults {
        var arms = self.arms
        for index in arms.indices where arms[index].matured > 0 {
            let users = Double(arms[index].matured)
            arms[index].retainedRate = Double(arms[index].retained) / users
            arms[index].revenuePerUser = arms[index].revenue.mapValues { Double($0) / users }
        }
        let ratio = SampleRatioCheck.check(assigned: arms.map(\.assigned), weights: expected)
        let metricValues: [(currency: String?, value: Int)] = experiment.definition.metric == .retained
            ? [(currency: nil, value: 0)] : currencies.enumerated().map { (currency: Optional($1), value: $0 + 1) }
        let comparisons = max(1, (arms.count - 1) * metricValues.count)
        let alpha = experiment.definition.alpha / Double(comparisons)
        let days = daily.sorted { $0.key < $1.key }
        var results: [ExperimentComparison] = []
        for treatment in arms.indices.dropFirst() {
            for metric in metricValues {
                results.append(compare(treatment, value: metric.value, currency: metric.currency, alpha: alpha, comparisons: comparisons,
                                       days: days, soundRatio: !(ratio?.mismatch ?? false)))
            }
        }
        return ExperimentResults(arms: arms, comparisons: results, sampleRatio: ratio, expectedAssigned: expected,
                                 comparisonCount: comparisons, level: 1 - alpha)
    }

    private func compare(_ treatment: Int, value: Int, currency: String?, alpha: Double, comparisons: Int,
                         days: [(key: Int64, value: [[MetricSample]])], soundRatio: Bool) -> ExperimentComparison {
        let tuning = experiment.definition.tuningSampleSize
        // A difference of two rates lies in [−1, 1]: so does its interval (revenue's is not bounded).
        let bound: (Double) -> Double = currency == nil ? { min(1, max(-1, $0)) } : { $0 }
        var samples = (control: MetricSample(), treatment: MetricSample())
        var points: [ExperimentComparison.Point] = []
        for (end, byArm) in days where byArm[0][value].count + byArm[treatment][value].count > 0 {
            samples.control.add(byArm[0][value])
            samples.treatment.add(byArm[treatment][value])
            guard let sequence = ConfidenceSequence.compare(treatment: samples.treatment, control: samples.control, alpha: alpha,
                                                            tuningSampleSize: tuning) else { continue }
            points.append(.init(at: Date(milliseconds: end), users: samples.control.count + samples.treatment.count,
                                difference: sequence.difference, low: bound(sequence.low), high: bound(sequence.high)))
        }
        if points.count > 366 {
            let step = Double(points.count - 1) / 365
            points = (0...365).map { points[Int((Double($0) * step).rounded())] }
        }
        let final = ConfidenceSequence.compare(treatment: samples.treatment, control: samples.control, alpha: alpha, tuningSampleSize: tuning)
        return ExperimentComparison(
            armId: arms[treatment].armId, controlArmId: arms[0].armId, currency: currency,
            users: samples.control.count + samples.treatment.count, difference: final?.difference, low: final.map { bound($0.low) },
            high: final.map { bound($0.high) },
            pValue: final.map { min(1, $0.pValue * Double(comparisons)) }, established: soundRatio && (final?.isEstablished ?? false),
            sequence: points)
    }
}
