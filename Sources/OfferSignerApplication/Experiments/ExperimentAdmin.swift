import Foundation
import OfferSignerCore
import OfferSignerStore

/// Marketing's experiments: saving a definition (`draft`, or a running one's weights),
/// starting, stopping (optionally putting the winner's offer first in the placement) and
/// deleting a draft. Every change is one transaction under the rules' change lock, recorded
/// like any rule change; the placement's one running experiment is held by the database.
public struct ExperimentAdmin: Sendable {
    let experiments: any ExperimentStore
    let offers: any OfferStore
    let clock: WallClock

    public init(experiments: any ExperimentStore, offers: any OfferStore, clock: WallClock) {
        self.experiments = experiments
        self.offers = offers
        self.clock = clock
    }

    /// The experiment, whatever its status except deleted.
    public func experiment(bundleId: String, experimentId: String) throws(ExperimentRefusal) -> StoredRule<Experiment> {
        let stored: StoredRule<Experiment>?
        do { stored = try experiments.experiment(bundleId: bundleId, experimentId: experimentId) } catch { throw .store(error) }
        guard let stored, stored.rule.status != .deleted else { throw .notFound(experimentId: experimentId, bundleId: bundleId) }
        return stored
    }

    /// The app's experiments (deleted drafts left out).
    public func list(bundleId: String?) throws(ExperimentRefusal) -> [StoredRule<Experiment>] {
        do { return try experiments.experiments(bundleId: bundleId).filter { $0.rule.status != .deleted } } catch { throw .store(error) }
    }

    /// Creates or changes a draft, or changes a running experiment's weights (which apply to
    /// users not yet assigned: a new weight period); `created` says whether it is new.
    public func save(_ definition: ExperimentDefinition, by actor: String) throws(ExperimentRefusal) -> (StoredRule<Experiment>, created: Bool) {
        var faults = definition.faults()
        if faults.isEmpty {
            do { faults += try references(definition) } catch { throw .store(error) }
        }
        guard faults.isEmpty else { throw .invalid(faults) }
        let now = clock.now
        var created = false
        let stored = try run {
            try experiments.change(bundleId: definition.bundleId, experimentId: definition.experimentId, by: actor, at: now) { context in
                try placementExists(definition.placement, context)
                guard let existing = context.existing?.rule, existing.status != .deleted else {
                    created = true  // new, or the ID of a deleted draft used again
                    return ExperimentChange(experiment: Experiment(definition: definition))
                }
                var experiment = existing
                switch existing.status {
                case .draft, .deleted:
                    experiment.definition = definition
                case .running:
                    let frozen = Self.frozenFields(existing.definition, definition)
                    guard frozen.isEmpty else { throw ExperimentRefusal.frozen(experimentId: definition.experimentId, fields: frozen) }
                    let weights = definition.arms.map(\.weight)
                    experiment.definition = definition
                    if weights != existing.weightPeriods.last?.weights {
                        experiment.weightPeriods.append(ExperimentWeightPeriod(from: now, weights: weights))
                    }
                case .stopped:
                    throw ExperimentRefusal.wrongStatus(experimentId: definition.experimentId, status: .stopped, action: "change")
                }
                return ExperimentChange(experiment: experiment)
            }
        }
        return (stored!, created)
    }

    /// Starts a draft: no other experiment may run on its placement; the revenue caps are
    /// fixed from the app's Production history.
    public func start(bundleId: String, experimentId: String, by actor: String) throws(ExperimentRefusal) -> StoredRule<Experiment> {
        let now = clock.now
        let draft = try experiment(bundleId: bundleId, experimentId: experimentId).rule
        let caps = try revenueCaps(bundleId: bundleId, at: now)
        if draft.definition.metric == .revenue, caps.isEmpty { throw .noRevenueHistory(bundleId: bundleId) }
        var faults: [ExperimentFault] = []
        do { faults = try references(draft.definition) } catch { throw .store(error) }
        guard faults.isEmpty else { throw .invalid(faults) }
        return try run {
            try experiments.change(bundleId: bundleId, experimentId: experimentId, by: actor, at: now) { context in
                guard var experiment = context.existing?.rule, experiment.status != .deleted else {
                    throw ExperimentRefusal.notFound(experimentId: experimentId, bundleId: bundleId)
                }
                guard experiment.status == .draft else {
                    throw ExperimentRefusal.wrongStatus(experimentId: experimentId, status: experiment.status, action: "start")
                }
                try placementExists(experiment.definition.placement, context)
                if let running = try context.runningOn(experiment.definition.placement) {
                    throw ExperimentRefusal.placementBusy(placementId: experiment.definition.placement, runningExperimentId: running)
                }
                experiment.status = .running
                experiment.startedAt = now
                experiment.revenueCaps = caps
                experiment.weightPeriods = [ExperimentWeightPeriod(from: now, weights: experiment.arms.map(\.weight))]
                return ExperimentChange(experiment: experiment)
            }
        }!
    }

    /// Stops a running experiment; with `winner`, that arm's offer is put first in the
    /// placement (recorded as the placement's change, in the same transaction).
    public func stop(bundleId: String, experimentId: String, winner: String?, by actor: String) throws(ExperimentRefusal) -> StoredRule<Experiment> {
        let now = clock.now
        return try run {
            try experiments.change(bundleId: bundleId, experimentId: experimentId, by: actor, at: now) { context in
                guard var experiment = context.existing?.rule, experiment.status != .deleted else {
                    throw ExperimentRefusal.notFound(experimentId: experimentId, bundleId: bundleId)
                }
                guard experiment.status == .running else {
                    throw ExperimentRefusal.wrongStatus(experimentId: experimentId, status: experiment.status, action: "stop")
                }
                experiment.status = .stopped
                experiment.stoppedAt = now
                var placement: Placement?
                if let winner {
                    guard let arm = experiment.arms.first(where: { $0.armId == winner }) else {
                        throw ExperimentRefusal.invalidWinner(armId: winner, reason: "the experiment has no arm '\(winner)'")
                    }
                    guard let offerId = arm.offerId else {
                        throw ExperimentRefusal.invalidWinner(armId: winner, reason: "arm '\(winner)' shows no offer, so there is no offer to put first; stop without a winner and change the placement")
                    }
                    guard var changed = try context.placement(experiment.definition.placement)?.rule else {
                        throw ExperimentRefusal.invalidWinner(armId: winner, reason: "placement '\(experiment.definition.placement)' no longer exists")
                    }
                    changed.offerIds = Array(([offerId] + changed.offerIds.filter { $0 != offerId }).prefix(Placement.maxOffers))
                    placement = changed
                    experiment.winner = winner
                }
                return ExperimentChange(experiment: experiment, placement: placement)
            }
        }!
    }

    /// Deletes a draft (it keeps its history; its ID may be used again).
    public func delete(bundleId: String, experimentId: String, by actor: String) throws(ExperimentRefusal) -> StoredRule<Experiment> {
        try run {
            try experiments.change(bundleId: bundleId, experimentId: experimentId, by: actor, at: clock.now) { context in
                guard var experiment = context.existing?.rule, experiment.status != .deleted else {
                    throw ExperimentRefusal.notFound(experimentId: experimentId, bundleId: bundleId)
                }
                guard experiment.status == .draft else {
                    throw ExperimentRefusal.wrongStatus(experimentId: experimentId, status: experiment.status, action: "delete")
                }
                experiment.status = .deleted
                return ExperimentChange(experiment: experiment)
            }
        }!
    }

    /// The revenue cap of each currency of the app's Production history (``ExperimentRevenueCap``).
    func revenueCaps(bundleId: String, at now: Date) throws(ExperimentRefusal) -> [String: Int64] {
        let to = now.milliseconds
        let from = to - Int64(ExperimentRevenueCap.historyDays) * 86_400_000
        do {
            return try experiments.revenuePerUser(bundleId: bundleId, environment: AppStoreEnvironment.production.rawValue,
                                                  from: from, to: to)
                .compactMapValues { ExperimentRevenueCap.cap(perUser: $0) }
        } catch {
            throw .store(error)
        }
    }

    /// What changed of what may not change while running.
    static func frozenFields(_ old: ExperimentDefinition, _ new: ExperimentDefinition) -> [String] {
        var fields: [String] = []
        if old.placement != new.placement { fields.append("placement") }
        if old.arms.map(\.armId) != new.arms.map(\.armId) || old.arms.map(\.offerId) != new.arms.map(\.offerId) { fields.append("arms") }
        if old.metric != new.metric { fields.append("metric") }
        if old.horizonDays != new.horizonDays { fields.append("horizonDays") }
        if old.alpha != new.alpha { fields.append("alpha") }
        if old.expectedUsers != new.expectedUsers { fields.append("expectedUsers") }
        return fields
    }

    /// The arms' offers must be the app's offer rules.
    private func references(_ definition: ExperimentDefinition) throws -> [ExperimentFault] {
        try definition.arms.enumerated().compactMap { index, arm in
            guard let offerId = arm.offerId, try offers.offer(bundleId: definition.bundleId, offerId: offerId) == nil else { return nil }
            return ExperimentFault("unknown_offer", "'arms[\(index)].offerId' names no offer of \(definition.bundleId): no offer '\(offerId)' is configured")
        }
    }

    private func placementExists(_ placementId: String, _ context: ExperimentChangeContext) throws {
        guard let placement = try context.placement(placementId), placement.rule.enabled else {
            throw ExperimentRefusal.invalid([ExperimentFault("unknown_placement", "'placement' names no placement of the app: no enabled placement '\(placementId)' is configured")])
        }
    }

    /// Runs a store change, its refusals kept and anything else the store's.
    private func run<T>(_ body: () throws -> T) throws(ExperimentRefusal) -> T {
        do { return try body() } catch let refusal as ExperimentRefusal { throw refusal } catch { throw .store(error) }
    }
}
