import Foundation
import OfferSignerCore
import OfferSignerStore

/// Makes an experiment's report from its assignments and the app's history: each assigned
/// user's outcome and revenue at their horizon (``ExperimentUserOutcome``), whether they
/// redeemed the arm's offer (a matched redemption between assignment and horizon), added up
/// per arm with the statistics (``ExperimentTally``). One read of the matched redemptions,
/// then one pass over the assigned users in key order, each with their periods of the app that
/// end after the first assignment, joined by the database
/// (``ExperimentStore/forEachAssignedUser(bundleId:experimentId:environment:_:)``).
public struct ExperimentReporting: Sendable {
    let experiments: any ExperimentStore
    let clock: WallClock

    public init(experiments: any ExperimentStore, clock: WallClock) {
        self.experiments = experiments
        self.clock = clock
    }

    /// The report of the app's experiment for `environment`'s users (Production by default).
    public func report(bundleId: String, experimentId: String, environment: AppStoreEnvironment = .production) throws(ExperimentRefusal) -> ExperimentReport {
        let now = clock.now
        do {
            guard let stored = try experiments.experiment(bundleId: bundleId, experimentId: experimentId), stored.rule.status != .deleted else {
                throw ExperimentRefusal.notFound(experimentId: experimentId, bundleId: bundleId)
            }
            let experiment = stored.rule
            var tally = ExperimentTally(experiment: experiment)
            let armOffers = Dictionary(experiment.arms.compactMap { arm in arm.offerId.map { (arm.armId, $0) } }, uniquingKeysWith: { a, _ in a })
            // The matched redemptions of the arms' offers, by user key (few beside the assignments).
            var redemptions: [String: [(offerId: String, at: Int64)]] = [:]
            for (keys, offerId, at) in try experiments.matchedRedemptions(bundleId: bundleId, environment: environment.rawValue,
                                                                           offerIds: Array(Set(armOffers.values)).sorted()) {
                for key in keys { redemptions[key, default: []].append((offerId, at)) }
            }
            let nowMs = now.milliseconds
            try experiments.forEachAssignedUser(bundleId: bundleId, experimentId: experimentId, environment: environment.rawValue) { assignment, periods in
                let horizon = tally.horizon(assignedAt: assignment.assignedAt)
                let redeemed = armOffers[assignment.armId].map { offer in
                    redemptions.isEmpty ? false
                        : redemptions[assignment.userKey]?.contains { $0.offerId == offer && $0.at >= assignment.assignedAt && $0.at < horizon } ?? false
                } ?? false
                tally.add(armId: assignment.armId, weightPeriod: assignment.weightPeriod, assignedAt: assignment.assignedAt,
                          eligible: assignment.eligible, signed: assignment.firstSignedAt != nil, redeemed: redeemed, now: nowMs) {
                    (ExperimentUserOutcome.judge(periods, assignedAt: assignment.assignedAt, horizon: horizon),
                     ExperimentUserOutcome.revenue(periods, assignedAt: assignment.assignedAt, horizon: horizon))
                }
            }
            return ExperimentReport(
                experimentId: experiment.experimentId, bundleId: bundleId, placement: experiment.definition.placement, status: experiment.status,
                metric: experiment.definition.metric, horizonDays: experiment.definition.horizonDays, alpha: experiment.definition.alpha,
                tuningSampleSize: experiment.definition.tuningSampleSize, environment: environment.rawValue, startedAt: experiment.startedAt,
                stoppedAt: experiment.stoppedAt, generatedAt: now, revenueCaps: experiment.revenueCaps, results: tally.results(now: now))
        } catch let refusal as ExperimentRefusal {
            throw refusal
        } catch {
            throw .store(error)
        }
    }
}
