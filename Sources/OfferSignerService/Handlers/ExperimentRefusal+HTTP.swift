import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension ExperimentRefusal: HTTPResponseError {
    /// The answers of the experiment admin routes.
    public var problem: HTTPProblem {
        switch self {
        case .notFound(let experimentId, let bundleId):
            HTTPProblem(status: 404, code: "experiment_not_found", title: "Experiment not found",
                        detail: "no experiment '\(experimentId)' is configured for \(bundleId)")
        case .invalid(let faults):
            HTTPProblem(status: 400, code: faults.first?.code ?? "invalid_request", title: "Invalid experiment",
                        detail: faults.map(\.message).joined(separator: "; "),
                        extensions: ["errors": faults.map(\.message), "faults": faults])
        case .placementBusy(let placementId, let running):
            HTTPProblem(status: 409, code: "placement_busy", title: "Placement busy",
                        detail: "experiment '\(running)' is running on placement '\(placementId)'; stop it first (one running experiment per placement)",
                        extensions: ["placement": placementId, "runningExperimentId": running])
        case .frozen(let experimentId, let fields):
            HTTPProblem(status: 409, code: "experiment_frozen", title: "Experiment running",
                        detail: "experiment '\(experimentId)' is running: only the arms' weights may change (changed: \(fields.joined(separator: ", ")))",
                        extensions: ["fields": fields])
        case .wrongStatus(let experimentId, let status, let action):
            HTTPProblem(status: 409, code: Self.statusCode(action), title: "Not possible in this status",
                        detail: "experiment '\(experimentId)' is \(status.rawValue): \(Self.statusRule(action))",
                        extensions: ["status": status.rawValue])
        case .invalidWinner(let armId, let reason):
            HTTPProblem(status: 400, code: "invalid_winner", title: "Invalid winner", detail: reason, extensions: ["winner": armId])
        case .noRevenueHistory(let bundleId):
            HTTPProblem(status: 409, code: "no_revenue_history", title: "No revenue history",
                        detail: "the revenue cap of a revenue experiment is fixed at start from the app's history, and \(bundleId) has no paid Production transaction in the last 365 days")
        case .store(let error as DatabaseUnavailable):
            error.problem
        case .store(let error):
            HTTPProblem(status: 500, code: "internal_error", title: "Internal error", detail: "\(type(of: error))")
        }
    }

    public var unexpectedCause: (any Error)? {
        guard case .store(let error) = self, !(error is DatabaseUnavailable) else { return nil }
        return error
    }

    private static func statusCode(_ action: String) -> String {
        switch action {
        case "stop": "experiment_not_running"
        case "change": "experiment_stopped"
        default: "experiment_not_draft"
        }
    }

    private static func statusRule(_ action: String) -> String {
        switch action {
        case "stop": "only a running experiment can be stopped"
        case "change": "a stopped experiment cannot change (create another)"
        case "delete": "only a draft can be deleted"
        default: "only a draft can be started"
        }
    }
}
