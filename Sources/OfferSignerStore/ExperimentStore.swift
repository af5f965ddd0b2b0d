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
    /// The experiment running on the placement with `userKey`'s assignment, in one indexed read.
    func running(bundleId: String, placementId: String, userKey: String) throws -> RunningExperiment?
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
    /// Calls `body` with each of the app's periods in `environment` that end at or after `since`
    /// (or never), with the users it belongs to: its app account token (lowercased; nil
    /// without one) and its original transaction ID (the user `transaction:` and that ID).
    /// The currency is read only of paid periods bought from `since` on. One pass, nothing
    /// kept: the caller keeps what it needs.
    func forEachPeriod(bundleId: String, environment: String, since: Int64,
                       _ body: (_ appAccountToken: String?, _ originalTransactionId: String, _ period: ExperimentPeriod) throws -> Void) throws
    /// The users (as ``forEachPeriod(bundleId:environment:since:_:)`` names them) of each redemption of
    /// one of `offerIds` in the app and environment matched to a signature, with the offer and
    /// the redemption's start.
    func matchedRedemptions(bundleId: String, environment: String, offerIds: [String]) throws -> [(userKeys: [String], offerId: String, at: Int64)]
}
