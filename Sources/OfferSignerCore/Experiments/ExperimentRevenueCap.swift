/// The cap at which an experiment's revenue per user is winsorised, fixed when the experiment
/// starts from the app's history so that a few very large spenders cannot decide it: per
/// currency, the 99th percentile (nearest rank) of the net revenue per paying user over the
/// 365 days before the start, the same for every arm.
public enum ExperimentRevenueCap {
    /// The percentile the cap is taken at.
    public static let percentile = 99
    /// How far back the history is read, in days.
    public static let historyDays = 365

    /// The nearest-rank percentile of `perUser` (each paying user's net revenue, in
    /// milli-units); nil when there is none.
    public static func cap(perUser: [Int64]) -> Int64? {
        let paying = perUser.filter { $0 > 0 }.sorted()
        guard !paying.isEmpty else { return nil }
        let rank = (percentile * paying.count + 99) / 100  // ⌈p·n/100⌉
        return paying[max(0, min(paying.count - 1, rank - 1))]
    }
}
