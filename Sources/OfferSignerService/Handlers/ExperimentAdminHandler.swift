import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Marketing's experiment routes: `GET /v1/admin/experiments` (`?bundleId=`), `GET`, `PUT`
/// and `DELETE` (of a draft) of `/v1/admin/experiments/{experimentId}`, `POST …/start`,
/// `POST …/stop` (`{"winner": armId}` optional), the experiment's change history, and the
/// auditor's history of every experiment change.
struct ExperimentAdminHandler {
    let keyRing: KeyRing
    let admin: ExperimentAdmin
    let experiments: any ExperimentStore

    /// The body of `POST …/stop`.
    struct StopBody: Decodable {
        var winner: String?
    }

    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let bundleId = try request.query["bundleId"].map { _ in try OfferAdminHandler.app(request, keyRing) }
        return try HTTPResponse.json([Experiment.collectionKey: try admin.list(bundleId: bundleId).map { RuleDocument($0) }])
    }

    func get(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, experimentId) = try named(request, context)
        return try HTTPResponse.json(RuleDocument(try admin.experiment(bundleId: bundleId, experimentId: experimentId)))
    }

    /// Creates or changes a draft, or a running experiment's weights (201 when new).
    func put(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let experimentId = try context.parameters.require(Experiment.identifierKey)
        let configuration = keyRing.current
        let definition = try request.decodeRule(ExperimentDefinition.self, configuration,
                                                defaults: [ExperimentDefinition.defaultExperimentIdKey: experimentId])
        var faults = definition.faults()
        if definition.experimentId != experimentId {
            faults.insert(ExperimentFault("invalid_request", "'experimentId' in the body ('\(definition.experimentId)') differs from the experiment ID in the path ('\(experimentId)')"), at: 0)
        }
        if configuration.apps[definition.bundleId] == nil {
            faults.append(ExperimentFault("invalid_request", "no app with bundleId '\(definition.bundleId)' is configured"))
        }
        guard faults.isEmpty else { throw ExperimentRefusal.invalid(faults) }
        let (stored, created) = try admin.save(definition, by: context.callerName)
        return try HTTPResponse.json(RuleDocument(stored), status: created ? 201 : 200)
    }

    func start(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, experimentId) = try named(request, context)
        return try HTTPResponse.json(RuleDocument(try admin.start(bundleId: bundleId, experimentId: experimentId, by: context.callerName)))
    }

    func stop(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, experimentId) = try named(request, context)
        let body = request.body.isEmpty ? StopBody() : try request.decodeJSON(StopBody.self)
        return try HTTPResponse.json(RuleDocument(try admin.stop(bundleId: bundleId, experimentId: experimentId, winner: body.winner,
                                                                 by: context.callerName)))
    }

    func delete(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, experimentId) = try named(request, context)
        return try HTTPResponse.json(RuleDocument(try admin.delete(bundleId: bundleId, experimentId: experimentId, by: context.callerName)))
    }

    /// One experiment's change history, oldest first, paged (status changes included).
    func experimentChanges(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (bundleId, experimentId) = try named(request, context)
        guard try experiments.experiment(bundleId: bundleId, experimentId: experimentId) != nil else {
            throw ExperimentRefusal.notFound(experimentId: experimentId, bundleId: bundleId)
        }
        return try changesPage(request, bundleId: bundleId, experimentId: experimentId)
    }

    /// Every experiment change (`?bundleId=`, `?experimentId=`, paged), for auditors.
    func changes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try changesPage(request, bundleId: request.query["bundleId"], experimentId: request.query["experimentId"])
    }

    private func changesPage(_ request: HTTPRequest, bundleId: String?, experimentId: String?) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let changes = try experiments.changes(bundleId: bundleId, experimentId: experimentId, afterId: page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id) { RuleChangeDocument($0) })
    }

    /// The app of `?bundleId=` and the path's experiment ID.
    private func named(_ request: HTTPRequest, _ context: ServiceContext) throws -> (String, String) {
        (try OfferAdminHandler.app(request, keyRing), try context.parameters.require(Experiment.identifierKey))
    }
}

extension ExperimentAdminHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/admin/experiments", policy: .roles([.marketing]), query: ["bundleId"], handler: list(_:_:))
        let experiment = "/v1/admin/experiments/{experimentId}"
        router.add("GET", experiment, policy: .roles([.marketing]), query: ["bundleId"], handler: get(_:_:))
        router.add("PUT", experiment, policy: .roles([.marketing]), handler: put(_:_:))
        router.add("DELETE", experiment, policy: .roles([.marketing]), query: ["bundleId"], handler: delete(_:_:))
        router.add("POST", "\(experiment)/start", policy: .roles([.marketing]), query: ["bundleId"], handler: start(_:_:))
        router.add("POST", "\(experiment)/stop", policy: .roles([.marketing]), query: ["bundleId"], handler: stop(_:_:))
        router.add("GET", "\(experiment)/changes", policy: .roles([.marketing]), query: ["bundleId", "limit", "cursor"],
                   handler: experimentChanges(_:_:))
        router.add("GET", "/v1/audit/experiment-changes", policy: .roles([.auditor]), query: ["experimentId", "bundleId", "limit", "cursor"],
                   handler: changes(_:_:))
    }
}
