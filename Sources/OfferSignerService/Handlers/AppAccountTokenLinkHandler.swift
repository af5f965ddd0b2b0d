import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/audit/app-account-token-links`: every subscription the service (or an operator,
/// `offer-signer appstore link`) asked Apple to attribute to a user with Set App Account Token,
/// linked, refused or failed, oldest first (`?bundleId=`, `?originalTransactionId=`, paged).
struct AppAccountTokenLinkHandler {
    /// Nil when the stores keep no links: the list is empty.
    let links: (any AppAccountTokenLinkStore)?

    struct Document: Encodable {
        let link: AppAccountTokenLink

        enum Keys: String, CodingKey {
            case id, bundleId, environment, originalTransactionId, appAccountToken, outcome, existingToken, reason, actor, requestId,
                 forced, attempts, at
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(link.id, forKey: .id)
            try c.encode(link.bundleId, forKey: .bundleId)
            try c.encode(link.environment.rawValue, forKey: .environment)
            try c.encode(link.originalTransactionId, forKey: .originalTransactionId)
            try c.encode(link.appAccountToken, forKey: .appAccountToken)
            try c.encode(link.outcome.rawValue, forKey: .outcome)
            try c.encode(link.existingToken, forKey: .existingToken)
            try c.encode(link.reason, forKey: .reason)
            try c.encode(link.actor, forKey: .actor)
            try c.encode(link.requestId, forKey: .requestId)
            try c.encode(link.forced, forKey: .forced)
            try c.encode(link.attempts, forKey: .attempts)
            try c.encode(RFC3339.string(from: link.at), forKey: .at)
        }
    }

    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let found = try links?.links(bundleId: request.query["bundleId"], originalTransactionId: request.query["originalTransactionId"],
                                     afterId: page.after, limit: page.limit) ?? []
        return try HTTPResponse.json(page.page(found, position: \.id, Document.init))
    }
}

extension AppAccountTokenLinkHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/audit/app-account-token-links", policy: .roles([.auditor]),
                   query: ["bundleId", "originalTransactionId", "limit", "cursor"], handler: list(_:_:))
    }
}
