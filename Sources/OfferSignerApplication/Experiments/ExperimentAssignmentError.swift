/// An experiment whose stored state leaves a user without an arm (no arm of positive weight,
/// or a recorded arm no longer among the arms), which the admin routes never allow.
enum ExperimentAssignmentError: Error, CustomStringConvertible {
    case noArm(experimentId: String)

    var description: String {
        switch self {
        case .noArm(let experimentId): "experiment '\(experimentId)' has no arm to assign the user to"
        }
    }
}
