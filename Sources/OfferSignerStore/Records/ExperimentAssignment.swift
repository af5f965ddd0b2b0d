import Foundation

/// A user's arm in an experiment, recorded the first time the user reached the placement
/// while the experiment ran (`experiment_assignments`).
public struct ExperimentAssignment: Sendable, Hashable {
    public var bundleId: String
    public var experimentId: String
    /// The user as holdouts name them: the app account token, or `transaction:` and the
    /// proven original transaction ID.
    public var userKey: String
    public var armId: String
    /// The index of the experiment's weight period the arm was drawn under.
    public var weightPeriod: Int
    public var environment: String
    /// Milliseconds since 1970.
    public var assignedAt: Int64
    /// Whether the user was ever found eligible for the arm's offer.
    public var eligible: Bool
    /// When the arm's offer was first signed for the user (milliseconds), nil if never.
    public var firstSignedAt: Int64?

    public init(bundleId: String, experimentId: String, userKey: String, armId: String, weightPeriod: Int, environment: String,
                assignedAt: Int64, eligible: Bool, firstSignedAt: Int64?) {
        self.bundleId = bundleId
        self.experimentId = experimentId
        self.userKey = userKey
        self.armId = armId
        self.weightPeriod = weightPeriod
        self.environment = environment
        self.assignedAt = assignedAt
        self.eligible = eligible
        self.firstSignedAt = firstSignedAt
    }
}
