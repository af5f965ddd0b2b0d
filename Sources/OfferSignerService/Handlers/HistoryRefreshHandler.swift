import AppStoreServerAPI
import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/admin/history/refresh`: fetches one customer's history and statuses from the App
/// Store Server API now, verifies and stores them (support: "I resubscribed yesterday and the
/// app still offers me the win-back price").
struct HistoryRefreshHandler {
    let keyRing: KeyRing
    let ingestor: HistoryIngestor
    /// App Store Server API clients; nil when not configured.
    let appStoreAPI: AppStoreAPIClients?
    let logger: Logger

    struct Body: Decodable {
        var bundleId: String?
        var transactionId: String
    }

    struct Document: Encodable {
        let bundleId: String
        let transactionId: String
        let environment: String
        /// Verified transactions and renewal infos received, and the items outside subscriptions.
        let transactions: Int
        let renewals: Int
        let ignored: Int
        /// Items stored new or newer, and items already held.
        let accepted: Int
        let duplicates: Int
        /// The users (app account tokens, lowercased) the history names.
        let userIds: [String]
    }

    /// The refresh waits for Apple for at most about this long per request, retrying once.
    static let policy = (timeout: Duration.seconds(10),
                         retry: AppStoreServerAPIRetryPolicy(maxRetries: 1, maxRateLimitRetries: 1, maxRetryAfterWait: .seconds(5)))

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let body = try request.decodeJSON(Body.self)
        guard (1...64).contains(body.transactionId.utf8.count),
              body.transactionId.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw HTTPProblem.invalidRequest("'transactionId' must be an App Store transaction ID: 1 to 64 decimal digits")
        }
        if let bundleId = body.bundleId, !Identifier.isValid(bundleId) {
            throw HTTPProblem.invalidRequest("'bundleId' must be 1–256 visible ASCII characters")
        }
        guard let app = keyRing.current.app(bundleId: body.bundleId) else {
            if let bundleId = body.bundleId { throw HTTPProblem.notFound("no app with bundleId '\(bundleId)' is configured") }
            throw HTTPProblem.invalidRequest("'bundleId' is required when more than one app is configured")
        }
        guard let clients = appStoreAPI else { throw CustomerHistorySync.Failure.unavailable(.notConfigured) }
        let sync = CustomerHistorySync(
            clients: clients,
            ingestor: ingestor,
            policy: Self.policy)
        let fetched = try sync.fetch(bundleId: app.bundleId, transactionId: body.transactionId)
        let stored: CustomerHistorySync.Stored
        do {
            stored = try sync.store(fetched)
        } catch {
            logger.log(.error, "refreshed history not stored", ["requestId": .string(context.requestId), "error": .string("\(error)")])
            throw HTTPProblem.unavailable("the history could not be stored; refreshing again is safe")
        }
        logger.log(.info, "history refreshed", [
            "requestId": .string(context.requestId), "bundleId": .string(app.bundleId), "transactionId": .string(body.transactionId),
            "environment": .string(fetched.environment.rawValue), "accepted": .int(stored.accepted), "duplicates": .int(stored.duplicates),
        ])
        return try HTTPResponse.json(Document(
            bundleId: app.bundleId, transactionId: body.transactionId, environment: fetched.environment.rawValue,
            transactions: fetched.transactionCount, renewals: fetched.renewalCount, ignored: fetched.ignored,
            accepted: stored.accepted, duplicates: stored.duplicates, userIds: fetched.userIds.sorted()))
    }
}

extension HistoryRefreshHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/admin/history/refresh", policy: .roles([]), handler: handle(_:_:))
    }
}
