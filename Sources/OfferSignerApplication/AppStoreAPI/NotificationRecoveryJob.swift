import AppStoreServerAPI
import Dispatch
import Foundation
import OfferSignerCore

/// The scheduled recovery of missed notifications inside `serve` (`OFFER_SIGNER_RECOVER_INTERVAL`):
/// on start and then every interval, for every app that can call the App Store Server API and
/// every accepted environment, the time since the last recovered window is recovered. So an
/// outage longer than Apple's retries is healed without an operator.
package final class NotificationRecoveryJob: Sendable {
    private let recovery: NotificationRecovery
    private let logger: Logger
    private let task: PeriodicTask

    package init(recovery: NotificationRecovery, interval: Duration, logger: Logger) {
        self.recovery = recovery
        self.logger = logger
        task = PeriodicTask(name: "notification-recovery", interval: interval) { task in
            Self.round(recovery, logger: logger) { task.isStopping }
        }
    }

    /// Starts the job's thread; the first round runs at once.
    package func start() { task.start() }

    /// Stops the job, letting a page being read finish, and waits for its thread.
    package func stop() { task.stop() }

    /// One round now, on the caller's thread.
    func runOnce() {
        Self.round(recovery, logger: logger) { [task] in task.isStopping }
    }

    /// One round: every app and environment, each on its own so that one failing does not hold up the rest.
    private static func round(_ recovery: NotificationRecovery, logger: Logger, isStopping: () -> Bool) {
        for bundleId in recovery.clients.bundleIds {
            for environment in recovery.clients.environments {
                guard !isStopping() else { return }
                do {
                    let outcome = try recovery.recoverSinceLast(bundleId: bundleId, environment: environment, shouldStop: isStopping)
                    log(outcome, logger)
                } catch {
                    logger.log(.error, "missed notifications not recovered; the next round tries the same window again", [
                        "bundleId": .string(bundleId), "environment": .string(environment.rawValue), "reason": .string(error.description),
                    ])
                }
            }
        }
    }

    private static func log(_ outcome: NotificationRecovery.Outcome, _ logger: Logger) {
        var fields: [String: JSONValue] = [
            "bundleId": .string(outcome.bundleId), "environment": .string(outcome.environment.rawValue),
            "from": .string(RFC3339.string(from: outcome.start)), "to": .string(RFC3339.string(from: outcome.end)),
            "found": .int(outcome.found), "stored": .int(outcome.stored), "duplicates": .int(outcome.duplicates),
            "refused": .int(outcome.refusedCount),
        ]
        if let reason = outcome.refusals.first { fields["firstRefusal"] = .string(reason) }
        if let bound = outcome.boundReached {
            fields["bound"] = .string(bound)
            logger.log(.warning, "notification history not read to its end: stopped at its bound (OFFER_SIGNER_RECOVER_MAX_PAGES, "
                       + "OFFER_SIGNER_RECOVER_MAX_DURATION); the next round reads the window again", fields)
            return
        }
        logger.log(outcome.stored > 0 || outcome.refusedCount > 0 ? .warning : .info,
                   outcome.stored > 0 ? "missed notifications recovered" : "notification history checked", fields)
    }
}
