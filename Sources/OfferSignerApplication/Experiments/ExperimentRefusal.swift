import Foundation
import OfferSignerCore

/// Why an experiment's change was refused.
public enum ExperimentRefusal: Error, Sendable {
    /// The app has no experiment of this ID (or it was deleted, for what needs it alive).
    case notFound(experimentId: String, bundleId: String)
    /// The definition cannot be right: every fault, each with its code.
    case invalid([ExperimentFault])
    /// Another experiment runs on the placement.
    case placementBusy(placementId: String, runningExperimentId: String)
    /// Arms, metric or horizon (or the app and placement) changed while the experiment runs.
    case frozen(experimentId: String, fields: [String])
    /// The experiment's status does not allow the action (`start` of a running one, `stop` of
    /// a draft, a change or `DELETE` of a stopped one).
    case wrongStatus(experimentId: String, status: ExperimentStatus, action: String)
    /// `stop`'s winner names no arm of the experiment, or an arm without an offer.
    case invalidWinner(armId: String, reason: String)
    /// A revenue experiment cannot start while the app's history holds no revenue to fix the cap from.
    case noRevenueHistory(bundleId: String)
    /// The store failed.
    case store(any Error)
}
