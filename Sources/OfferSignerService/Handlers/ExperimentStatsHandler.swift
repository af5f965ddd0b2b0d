import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

/// `GET /v1/stats/experiments/{experimentId}?bundleId=&environment=&format=` (marketing,
/// auditor): the experiment's report, JSON or CSV (`?format=csv`, or `Accept: text/csv`).
struct ExperimentStatsHandler {
    let keyRing: KeyRing
    let appStore: AppStoreVerification
    let reporting: ExperimentReporting

    func report(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let experimentId = try context.parameters.require(Experiment.identifierKey)
        let bundleId = try OfferAdminHandler.app(request, keyRing)
        let environment = try EnvironmentSelection.environment(request.query["environment"], accepted: appStore.acceptedEnvironments,
                                                               source: "?environment=")
        let csv: Bool
        switch request.query["format"] {
        case nil: csv = request.prefers("text/csv", over: "application/json")
        case "json": csv = false
        case "csv": csv = true
        case let other?: throw HTTPProblem.invalidRequest("'format' must be json or csv, not '\(other)'")
        }
        let report = try reporting.report(bundleId: bundleId, experimentId: experimentId, environment: environment)
        return csv ? HTTPResponse.text(report.csv, contentType: "text/csv; charset=utf-8") : try HTTPResponse.json(report)
    }
}

extension ExperimentStatsHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/stats/experiments/{experimentId}", policy: .roles([.marketing, .auditor]),
                   query: ["bundleId", "environment", "format"], handler: report(_:_:))
    }
}
