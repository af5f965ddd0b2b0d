import OfferSignerCore

/// The experiment running on a placement, with one user's assignment if they have one.
public struct RunningExperiment: Sendable {
    public var experiment: StoredRule<Experiment>
    /// The user's assignment as read; nil when the user has none, or when it was not read.
    public var assignment: ExperimentAssignment?
    /// Whether ``assignment`` was read. When not (``ExperimentStore/running(bundleId:placementId:userKey:)``
    /// says when), the arm drawn now under the weights in force is the one a stored assignment
    /// names: the signature's commit reads the user's row (``SignedAssignment/previousRead``
    /// false), and a request that records its assignment without a signature reads it first
    /// (``ExperimentStore/assignment(bundleId:experimentId:userKey:)``).
    public var assignmentRead: Bool

    public init(experiment: StoredRule<Experiment>, assignment: ExperimentAssignment?, assignmentRead: Bool = true) {
        self.experiment = experiment
        self.assignment = assignment
        self.assignmentRead = assignmentRead
    }
}
