import OfferSignerCore

/// The experiment running on a placement, with one user's assignment if they have one.
public struct RunningExperiment: Sendable {
    public var experiment: StoredRule<Experiment>
    public var assignment: ExperimentAssignment?
}
