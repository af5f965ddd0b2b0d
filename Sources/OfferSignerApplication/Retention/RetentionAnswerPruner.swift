import Foundation
import OfferSignerCore
import OfferSignerStore

/// Keeps answered Retention Messaging requests for `keepDays` days
/// (`OFFER_SIGNER_RETENTION_KEEP_DAYS`), then deletes them in batches, so the table does not
/// grow for ever. A deleted answer is only the record that lets a repeat of the same request
/// get the same answer: the App Store repeats within minutes, and the signature of an offer
/// answered stays in the signature log.
package struct RetentionAnswerPruner: Sendable {
    let requests: any RetentionRequestStore
    let keepDays: Int
    let clock: WallClock
    let logger: Logger
    /// Rows deleted per transaction, so a large backlog never holds the table long.
    static let batch = 1000

    package init(requests: any RetentionRequestStore, keepDays: Int, clock: WallClock, logger: Logger) {
        self.requests = requests
        self.keepDays = keepDays
        self.clock = clock
        self.logger = logger
    }

    /// Deletes every answer older than `keepDays`, a batch at a time until none is left (or
    /// `isStopping`); how many it deleted.
    @discardableResult
    package func pruneOnce(isStopping: () -> Bool = { false }) -> Int {
        let cutoff = clock.now.addingTimeInterval(-Double(keepDays) * 86_400)
        var deleted = 0
        while !isStopping() {
            do {
                let count = try requests.prune(answeredBefore: cutoff, limit: Self.batch)
                deleted += count
                if count < Self.batch { break }
            } catch {
                logger.log(.error, "old retention answers not pruned; the next round tries again", ["error": .string("\(error)")])
                break
            }
        }
        if deleted > 0 {
            logger.log(.info, "old retention answers pruned", ["deleted": .int(deleted), "keepDays": .int(keepDays)])
        }
        return deleted
    }

    /// A task pruning every hour.
    package func task() -> PeriodicTask {
        PeriodicTask(name: "retention-answer-pruner", interval: .seconds(3600)) { task in
            pruneOnce { task.isStopping }
        }
    }
}
