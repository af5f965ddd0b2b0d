import OfferSignerCore

/// What an experiment's change reads under the change lock: the experiment as stored, the
/// experiment running on a placement, a placement.
public struct ExperimentChangeContext {
    public let existing: StoredRule<Experiment>?
    /// The ID of the experiment running on the app's placement, if any.
    public let runningOn: (_ placementId: String) throws -> String?
    /// The app's placement, enabled or not.
    public let placement: (_ placementId: String) throws -> StoredRule<Placement>?
}

/// What an experiment's change writes: the experiment, and a placement changed with it (the
/// winner's offer put first).
public struct ExperimentChange {
    public var experiment: Experiment
    public var placement: Placement?

    public init(experiment: Experiment, placement: Placement? = nil) {
        self.experiment = experiment
        self.placement = placement
    }
}
