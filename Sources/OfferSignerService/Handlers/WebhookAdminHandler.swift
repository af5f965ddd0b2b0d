import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `/v1/admin/webhooks…` (admin): webhooks created, replaced, read, deleted, their secret
/// rotated, their changes and deliveries listed, a delivery retried, a time range replayed.
struct WebhookAdminHandler {
    let administration: WebhookAdministration

    /// The body of `PUT /v1/admin/webhooks/{webhookId}`.
    struct Body: Decodable {
        let url: String
        let events: [String]
        let bundleIds: [String]?
        let enabled: Bool?
    }

    /// The body of `POST …/replay`.
    struct ReplayBody: Decodable {
        let from: Date
        let to: Date
    }

    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(["webhooks": try administration.webhooks().map { WebhookDocument(webhook: $0, secret: nil) }])
    }

    func get(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(WebhookDocument(webhook: try administration.webhook(id: try context.parameters.require("webhookId")), secret: nil))
    }

    /// 201 with the secret when created, 200 without it when replaced.
    func put(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let id = try context.parameters.require("webhookId")
        let body = try request.decodeJSON(Body.self)
        let saved = try administration.put(id: id, WebhookDefinition(url: body.url, events: body.events, bundleIds: body.bundleIds,
                                                                     enabled: body.enabled ?? true), by: context.callerName)
        return try HTTPResponse.json(WebhookDocument(webhook: saved.webhook, secret: saved.secret), status: saved.created ? 201 : 200)
    }

    func delete(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try administration.delete(id: try context.parameters.require("webhookId"), by: context.callerName)
        return HTTPResponse(status: 204)
    }

    func rotateSecret(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let saved = try administration.rotateSecret(id: try context.parameters.require("webhookId"), by: context.callerName)
        return try HTTPResponse.json(WebhookDocument(webhook: saved.webhook, secret: saved.secret))
    }

    func changes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let changes = try administration.changes(id: try context.parameters.require("webhookId"), afterId: page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id, WebhookChangeDocument.init))
    }

    /// Newest first; `?status=pending|delivered|dead`; the cursor names the last delivery shown.
    func deliveries(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        var state: WebhookDelivery.State?
        if let text = request.query["status"] {
            guard let parsed = WebhookDelivery.State(rawValue: text) else {
                throw HTTPProblem.invalidRequest("'status' must be pending, delivered or dead")
            }
            state = parsed
        }
        let found = try administration.deliveries(id: try context.parameters.require("webhookId"), state: state,
                                                  beforeId: page.after == 0 ? nil : page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(found, position: \.id, WebhookDeliveryDocument.init))
    }

    func retry(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try administration.retry(id: try context.parameters.require("webhookId"), eventId: try context.parameters.require("eventId"),
                                 by: context.callerName)
        return try HTTPResponse.json(["queued": 1], status: 202)
    }

    func replay(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let body = try request.decodeJSON(ReplayBody.self)
        let queued = try administration.replay(id: try context.parameters.require("webhookId"), from: body.from, to: body.to,
                                               by: context.callerName)
        return try HTTPResponse.json(["queued": queued], status: 202)
    }
}

extension WebhookAdminHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        let admin = Access.roles([.admin])
        router.add("GET", "/v1/admin/webhooks", policy: admin, handler: list(_:_:))
        router.add("GET", "/v1/admin/webhooks/{webhookId}", policy: admin, handler: get(_:_:))
        router.add("PUT", "/v1/admin/webhooks/{webhookId}", policy: admin, handler: put(_:_:))
        router.add("DELETE", "/v1/admin/webhooks/{webhookId}", policy: admin, handler: delete(_:_:))
        router.add("POST", "/v1/admin/webhooks/{webhookId}/rotate-secret", policy: admin, handler: rotateSecret(_:_:))
        router.add("GET", "/v1/admin/webhooks/{webhookId}/changes", policy: admin, query: ["limit", "cursor"], handler: changes(_:_:))
        router.add("GET", "/v1/admin/webhooks/{webhookId}/deliveries", policy: admin, query: ["status", "limit", "cursor"],
                   handler: deliveries(_:_:))
        router.add("POST", "/v1/admin/webhooks/{webhookId}/deliveries/{eventId}/retry", policy: admin, handler: retry(_:_:))
        router.add("POST", "/v1/admin/webhooks/{webhookId}/replay", policy: admin, handler: replay(_:_:))
    }
}
