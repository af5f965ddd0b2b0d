import Foundation

/// How far a backfill is, for its progress display.
public struct BackfillProgress: Sendable, Equatable {
    /// IDs this run has to do (not done by an earlier run).
    public var total: Int
    /// IDs done so far (fetched, covered, not found or failed).
    public var done: Int
    /// IDs failed so far.
    public var errors: Int
    /// Time since the run started.
    public var elapsed: Duration

    /// IDs per second so far.
    public var rate: Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(done) / seconds : 0
    }

    /// The time left at the rate so far; nil before anything is done.
    public var remainingSeconds: Double? {
        guard done > 0, rate > 0 else { return nil }
        return Double(total - done) / rate
    }

    /// One line for a terminal: a bar, done/total, percentage, rate, ETA and errors.
    public func bar(width: Int = 30) -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let filled = min(width, Int((fraction * Double(width)).rounded(.down)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + "\(done)/\(total) \(Self.percent(fraction))  \(Self.rate(rate))  ETA \(Self.duration(remainingSeconds))  errors \(errors)"
    }

    /// One line for a log: the same figures in words.
    public var line: String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        return "backfill: \(done)/\(total) done (\(Self.percent(fraction))), \(Self.rate(rate)), ETA \(Self.duration(remainingSeconds)), "
            + "\(errors) \(errors == 1 ? "error" : "errors")"
    }

    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded(.down)))%" }

    static func rate(_ rate: Double) -> String { String(format: "%.1f/s", rate) }

    /// `45s`, `12m05s`, `3h20m`, or `?` when unknown.
    static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "?" }
        let whole = Int(seconds.rounded(.up))
        switch whole {
        case ..<60: return "\(whole)s"
        case ..<3600: return String(format: "%dm%02ds", whole / 60, whole % 60)
        default: return String(format: "%dh%02dm", whole / 3600, (whole % 3600) / 60)
        }
    }
}
