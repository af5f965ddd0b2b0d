import Foundation
import OfferSignerCore
import OfferSignerStore

/// Sticky assignment of the users who reach a placement while an experiment runs on it: the
/// first time, an arm is drawn from the hash of (experiment, user) under the weights then in
/// force (``ExperimentArmDraw``) and recorded; every later request gets the recorded arm,
/// whatever the weights have become and whichever instance answers.
///
/// The running experiment comes from the rules kept in memory, the user's assignment from one
/// primary-key read (``ExperimentStore/placementAndRunning(bundleId:placementId:userKey:)``) — or, where
/// the store leaves it unread (the arm drawn now is the one any stored assignment names), from
/// the signature's commit, which reads the user's row before inserting, or from a read when
/// the request is refused (``stored(_:userKey:)``); one write records a new assignment (or
/// marks a recorded one eligible or signed the first time it becomes so): in the signature's
/// commit when the arm's offer is signed (``SignatureLog/append(_:quota:assigning:)``), in a
/// commit of its own (``record(_:previous:eligible:signedAt:)``) when the request is refused.
struct ExperimentAssigner: Sendable {
    let experiments: any ExperimentStore
    let metrics: Metrics

    /// The user's stored assignment to `running`'s experiment (for an assignment not read with it).
    func stored(_ running: RunningExperiment, userKey: String) throws(SignRefusal) -> ExperimentAssignment? {
        let experiment = running.experiment.rule
        do {
            return try experiments.assignment(bundleId: experiment.bundleId, experimentId: experiment.experimentId, userKey: userKey)
        } catch {
            throw .store(error)
        }
    }

    /// The user's arm: the recorded one, or one drawn now under the current weights (nil when
    /// the recorded arm is no longer among the arms, which a running experiment never allows).
    func arm(_ running: RunningExperiment, userKey: String, environment: AppStoreEnvironment, now: Date) -> ExperimentAssignment? {
        let experiment = running.experiment.rule
        if let recorded = running.assignment {
            return experiment.arms.contains { $0.armId == recorded.armId } ? recorded : nil
        }
        let period = experiment.currentWeightPeriod ?? 0
        let weights = experiment.weightPeriods.last?.weights ?? experiment.arms.map(\.weight)
        guard let index = ExperimentArmDraw.arm(experimentId: experiment.experimentId, user: userKey, weights: weights),
              experiment.arms.indices.contains(index) else { return nil }
        return ExperimentAssignment(bundleId: experiment.bundleId, experimentId: experiment.experimentId, userKey: userKey,
                                    armId: experiment.arms[index].armId, weightPeriod: period, environment: environment.rawValue,
                                    assignedAt: now.milliseconds, eligible: false, firstSignedAt: nil)
    }

    /// Records what became of the user's request: a new assignment once, or a recorded one
    /// that became eligible or signed for the first time; nothing otherwise.
    /// Returns the assignment that stands: another arm's when another request of the user
    /// recorded it first.
    @discardableResult
    func record(_ assignment: ExperimentAssignment, previous: ExperimentAssignment?, eligible: Bool,
                signedAt: Int64?) throws(SignRefusal) -> ExperimentAssignment {
        var next = assignment
        next.eligible = assignment.eligible || eligible
        next.firstSignedAt = assignment.firstSignedAt ?? signedAt
        guard previous == nil || next != previous else { return next }
        let stands: ExperimentAssignment
        do {
            stands = try experiments.record(next, previous: previous)
        } catch {
            throw .store(error)
        }
        if stands.armId == next.armId { counted(next, previous: previous) }
        return stands
    }

    /// Counts a new assignment (`previous` nil) once it is recorded.
    func counted(_ assignment: ExperimentAssignment, previous: ExperimentAssignment?) {
        if previous == nil { counted(assignment) }
    }

    /// Counts a new assignment the signature's commit inserted.
    func counted(_ assignment: ExperimentAssignment) {
        metrics.recordAssignment(bundleId: assignment.bundleId, experimentId: assignment.experimentId, armId: assignment.armId)
    }
}
