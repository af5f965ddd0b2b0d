import AppStoreServerAPI
import Dispatch
import Foundation
import OfferSignerCore
import Synchronization

/// The scheduled recovery of missed notifications inside `serve` (`OFFER_SIGNER_RECOVER_INTERVAL`):
/// on start and then every interval, for every app that can call the App Store Server API and
/// every accepted environment, the time since the last recovered window is recovered. So an
/// outage longer than Apple's retries is healed without an operator.
package final class NotificationRecoveryJob: Sendable {
    private let recovery: NotificationRecovery
    private let interval: Duration
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    package init(recovery: NotificationRecovery, interval: Duration, logger: Logger) {
        self.recovery = recovery
        self.interval = interval
        self.logger = logger
    }

    /// Starts the job's thread; the first round runs at once.
    package func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        NamedThread.start("notification-recovery") { [self] in
            while !stopping.load(ordering: .acquiring) {
                runOnce()
                let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
                _ = wake.wait(timeout: .now() + seconds)
            }
            finished.signal()
        }
    }

    /// Stops the job, letting a page being read finish, and waits for its thread.
    package func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
    }

    /// One round: every app and environment, each on its own so that one failing does not hold up the rest.
    func runOnce() {
        for bundleId in recovery.clients.bundleIds {
            for environment in recovery.clients.environments {
                guard !stopping.load(ordering: .acquiring) else { return }
                do {
                    let outcome = try recovery.recoverSinceLast(bundleId: bundleId, environment: environment) {
                        stopping.load(ordering: .acquiring)
                    }
                    log(outcome)
                } catch {
                    logger.log(.error, "missed notifications not recovered; the next round tries the same window again", [
                        "bundleId": .string(bundleId), "environment": .string(environment.rawValue), "reason": .string(error.description),
                    ])
                }
            }
        }
    }

    private func log(_ outcome: NotificationRecovery.Outcome) {
        var fields: [String: JSONValue] = [
            "bundleId": .string(outcome.bundleId), "environment": .string(outcome.environment.rawValue),
            "from": .string(RFC3339.string(from: outcome.start)), "to": .string(RFC3339.string(from: outcome.end)),
            "found": .int(outcome.found), "stored": .int(outcome.stored), "duplicates": .int(outcome.duplicates),
            "refused": .int(outcome.refusedCount),
        ]
        if let reason = outcome.refusals.first { fields["firstRefusal"] = .string(reason) }
        logger.log(outcome.stored > 0 || outcome.refusedCount > 0 ? .warning : .info,
                   outcome.stored > 0 ? "missed notifications recovered" : "notification history checked", fields)
    }
}
