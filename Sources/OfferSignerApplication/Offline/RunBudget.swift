import Foundation

/// How long one run of an `appstore` command may go on (`--max-duration SECONDS`; none by
/// default): once spent, the run stops as an interrupt does — what is done is kept, and the
/// same command resumes it.
struct RunBudget: Sendable {
    let ends: ContinuousClock.Instant?

    init(_ options: CommandLineOptions) throws(AppStoreTool.UsageError) {
        guard let text = options["--max-duration"] else {
            ends = nil
            return
        }
        guard let seconds = Int(text), seconds >= 1 else {
            throw AppStoreTool.UsageError(description: "--max-duration takes a number of seconds, at least 1")
        }
        ends = .now + .seconds(seconds)
    }

    /// Whether the run's time is up.
    var isSpent: Bool { ends.map { ContinuousClock.now >= $0 } ?? false }
}
