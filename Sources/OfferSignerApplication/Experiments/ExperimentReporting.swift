import Foundation
import OfferSignerCore
import OfferSignerStore

/// Makes an experiment's report from its assignments and the app's history: each assigned
/// user's outcome and revenue at their horizon (``ExperimentUserOutcome``), whether they
/// redeemed the arm's offer (a matched redemption between assignment and horizon), added up
/// per arm with the statistics (``ExperimentTally``). One read of the assignments, one pass
/// over the app's periods that end after the first assignment (keeping only assigned users'),
/// one read of the matched redemptions.
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
            let assignments = try experiments.assignments(bundleId: bundleId, experimentId: experimentId)
                .filter { $0.environment == environment.rawValue }
            var tally = ExperimentTally(experiment: experiment)
            let since = assignments.lazy.map(\.assignedAt).min() ?? now.milliseconds
            var assigned: [String: Int32] = [:]
            assigned.reserveCapacity(assignments.count)
            for (index, assignment) in assignments.enumerated() { assigned[assignment.userKey] = Int32(index) }
            let transactionUsers = assignments.contains { $0.userKey.hasPrefix(OfferHoldout.transactionUserPrefix) }
            // Each assigned user's periods, grouped by user without an array per user: the user
            // of each period found, then the periods placed by user (a counting sort).
            var owners: [Int32] = []
            var found: [ExperimentPeriod] = []
            try experiments.forEachPeriod(bundleId: bundleId, environment: environment.rawValue, since: since) { token, original, period in
                if let token, let user = assigned[token] {
                    owners.append(user)
                    found.append(period)
                }
                if transactionUsers, let user = assigned[OfferHoldout.transactionUserPrefix + original] {
                    owners.append(user)
                    found.append(period)
                }
            }
            var starts = [Int](repeating: 0, count: assignments.count + 1)
            for owner in owners { starts[Int(owner) + 1] += 1 }
            for index in assignments.indices { starts[index + 1] += starts[index] }
            var next = starts
            var periods = found
            for (owner, period) in zip(owners, found) {
                periods[next[Int(owner)]] = period
                next[Int(owner)] += 1
            }
            found = []
            let armOffers = Dictionary(experiment.arms.compactMap { arm in arm.offerId.map { (arm.armId, $0) } }, uniquingKeysWith: { a, _ in a })
            var redemptions: [Int32: [(offerId: String, at: Int64)]] = [:]
            for (keys, offerId, at) in try experiments.matchedRedemptions(bundleId: bundleId, environment: environment.rawValue,
                                                                           offerIds: Array(Set(armOffers.values)).sorted()) {
                for key in keys { if let user = assigned[key] { redemptions[user, default: []].append((offerId, at)) } }
            }
            assigned = [:]
            let nowMs = now.milliseconds
            for (index, assignment) in assignments.enumerated() {
                let horizon = tally.horizon(assignedAt: assignment.assignedAt)
                let redeemed = armOffers[assignment.armId].map { offer in
                    redemptions[Int32(index)]?.contains { $0.offerId == offer && $0.at >= assignment.assignedAt && $0.at < horizon } ?? false
                } ?? false
                tally.add(armId: assignment.armId, weightPeriod: assignment.weightPeriod, assignedAt: assignment.assignedAt,
                          eligible: assignment.eligible, signed: assignment.firstSignedAt != nil, redeemed: redeemed, now: nowMs) {
                    let mine = periods[starts[index]..<starts[index + 1]]
                    return (ExperimentUserOutcome.judge(mine, assignedAt: assignment.assignedAt, horizon: horizon),
                            ExperimentUserOutcome.revenue(mine, assignedAt: assignment.assignedAt, horizon: horizon))
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
