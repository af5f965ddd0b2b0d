/// Shows a backfill's progress on standard error: a bar redrawn in place on a terminal (at most
/// five times a second), otherwise a plain line every `every`, so logs stay readable.
package struct ProgressDisplay {
    let isTerminal: Bool
    let every: Duration
    let write: @Sendable (String) -> Void
    private var lastShown: ContinuousClock.Instant?
    private var last: BackfillProgress?

    init(isTerminal: Bool, every: Duration, write: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.every = every
        self.write = write
    }

    mutating func show(_ progress: BackfillProgress) {
        last = progress
        let now = ContinuousClock.now
        if let lastShown, now - lastShown < (isTerminal ? .milliseconds(200) : every) { return }
        lastShown = now
        write(isTerminal ? "\r" + progress.bar() + "\u{1B}[K" : progress.line + "\n")
    }

    /// The final figures, and the end of the bar's line.
    mutating func finish() {
        guard let last else { return }
        write(isTerminal ? "\r" + last.bar() + "\u{1B}[K\n" : last.line + "\n")
    }
}
