import Foundation
import OfferSignerCore

/// Offer experiments: the experiments (managed rules of kind `experiment`, versioned with
/// every change recorded), the experiment running on each placement, and users' sticky
/// assignments to arms.
public protocol ExperimentStore: Sendable {
    /// The experiment `experimentId` of the app, whatever its status.
    func experiment(bundleId: String, experimentId: String) throws -> StoredRule<Experiment>?
    /// Every experiment (of one app when `bundleId` is given), by app, then ID.
    func experiments(bundleId: String?) throws -> [StoredRule<Experiment>]
    /// Changes to experiments, oldest first, after the change with ID `afterId`, of one app
    /// when `bundleId` is given, of one experiment when `experimentId` is.
    func changes(bundleId: String?, experimentId: String?, afterId: Int64, limit: Int) throws -> [RuleChange<Experiment>]
    /// Changes an experiment in one transaction under the rules' change lock: `decide` reads
    /// the stored experiment (and what else ``ExperimentChangeContext`` offers) and returns
    /// what to write, or nil for nothing (or throws, writing nothing). The experiment's change
    /// is recorded like any rule's, the placement's too; a running experiment holds its
    /// placement (`experiment_placements`), any other status releases it.
    func change(bundleId: String, experimentId: String, by actor: String, at now: Date,
                _ decide: (ExperimentChangeContext) throws -> ExperimentChange?) throws -> StoredRule<Experiment>?
    /// The placement `placementId` of the app, enabled or not, from the rules kept in memory:
    /// no read of the database while they are current (a placement request's, beside
    /// ``running(bundleId:placementId:userKey:)``).
    func placement(bundleId: String, placementId: String) throws -> StoredRule<Placement>?
    /// The experiment running on the placement with `userKey`'s assignment: which experiment
    /// runs, and its definition, from the rules kept in memory (current at once after a change
    /// of this process, within about a second of another process's); the assignment by one
    /// primary-key read, or not read (``RunningExperiment/assignmentRead`` false) where the
    /// signature's commit reads it more cheaply and the arm drawn now is the one any stored
    /// assignment names (one weight period).
    func running(bundleId: String, placementId: String, userKey: String) throws -> RunningExperiment?
    /// The placement (enabled or not) and, when it is enabled, the experiment running on it
    /// with `userKey`'s assignment: ``placement(bundleId:placementId:)`` and
    /// ``running(bundleId:placementId:userKey:)`` at once (one look at the rules kept in memory).
    func placementAndRunning(bundleId: String, placementId: String,
                             userKey: String) throws -> (placement: StoredRule<Placement>?, running: RunningExperiment?)
    /// The user's assignment to the experiment, by one primary-key read.
    func assignment(bundleId: String, experimentId: String, userKey: String) throws -> ExperimentAssignment?
    /// Records `assignment` when `previous` is nil (a user assigned at once elsewhere keeps
    /// that first assignment); otherwise marks the stored one eligible and signed as
    /// `assignment` says, never undoing either. Returns the assignment that stands: the
    /// first one stored when another request recorded the user first (its arm may differ).
    @discardableResult
    func record(_ assignment: ExperimentAssignment, previous: ExperimentAssignment?) throws -> ExperimentAssignment
    /// Every assignment of the experiment.
    func assignments(bundleId: String, experimentId: String) throws -> [ExperimentAssignment]
    /// Each paying user's net revenue per currency (milli-units; refunded transactions left
    /// out) from the app's transactions in `environment` bought in `[from, to)` (milliseconds):
    /// what an experiment's revenue caps are fixed from.
    func revenuePerUser(bundleId: String, environment: String, from: Int64, to: Int64) throws -> [String: [Int64]]
    /// Calls `body` once for each of the experiment's assignments in `environment`, in the order
    /// of their user keys (byte by byte), with the user's periods of the app in that environment
    /// that end at or after the earliest of those assignments (or never): an app account
    /// token's by the token, a `transaction:` user's by the original transaction ID. The
    /// database joins the assignments to the periods; nothing is kept between calls.
    func forEachAssignedUser(bundleId: String, experimentId: String, environment: String,
                             _ body: (_ assignment: ExperimentAssignment, _ periods: [ExperimentPeriod]) throws -> Void) throws
    /// The user keys (an app account token, lowercased, and `transaction:` with the original transaction ID) of each redemption of
    /// one of `offerIds` in the app and environment matched to a signature, with the offer and
    /// the redemption's start.
    func matchedRedemptions(bundleId: String, environment: String, offerIds: [String]) throws -> [(userKeys: [String], offerId: String, at: Int64)]
}

extension ExperimentStore {
    public func placementAndRunning(bundleId: String, placementId: String,
                                    userKey: String) throws -> (placement: StoredRule<Placement>?, running: RunningExperiment?) {
        let stored = try placement(bundleId: bundleId, placementId: placementId)
        guard let stored, stored.rule.enabled else { return (stored, nil) }
        return (stored, try running(bundleId: bundleId, placementId: placementId, userKey: userKey))
    }
}
