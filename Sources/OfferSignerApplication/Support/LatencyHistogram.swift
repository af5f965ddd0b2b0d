import Foundation

/// A Prometheus histogram of durations in seconds with fixed bucket bounds, rendered as one
/// metric family (`_bucket` with cumulative counts, `_sum`, `_count`).
struct LatencyHistogram: Sendable {
    /// Upper bounds of the buckets, in seconds, ascending (`+Inf` is added when rendered).
    let bounds: [Double]
    private var buckets: [Int]
    private var count = 0
    private var sum = 0.0

    init(bounds: [Double]) {
        self.bounds = bounds
        buckets = [Int](repeating: 0, count: bounds.count)
    }

    /// Counts one duration of `seconds`.
    mutating func record(_ seconds: Double) {
        count += 1
        sum += seconds
        if let bucket = bounds.firstIndex(where: { seconds <= $0 }) { buckets[bucket] += 1 }
    }

    /// The family's samples (no `# HELP` or `# TYPE` lines) under `name`.
    func samples(_ name: String) -> String {
        var out = ""
        var cumulative = 0
        for (bound, inBucket) in zip(bounds, buckets) {
            cumulative += inBucket
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n"
        out += "\(name)_sum \(sum)\n"
        out += "\(name)_count \(count)\n"
        return out
    }
}
