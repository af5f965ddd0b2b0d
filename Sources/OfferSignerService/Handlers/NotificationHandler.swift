import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/notifications/appstore`: App Store Server Notifications V2. The JWS is the
/// credential: anything that does not verify is refused with 400 and nothing is stored.
struct NotificationHandler {
    let ingestor: HistoryIngestor
    let history: any SubscriptionHistoryStore
    let rateLimits: RateLimits
    let metrics: Metrics
    let logger: Logger

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let signedPayload = try SignedPayloadBody.read(request, rateLimits: rateLimits, what: "notifications from this address")
        let ingestor = ingestor
        let item: HistoryItem
        do {
            item = try ingestor.verifyNotification(signedPayload)
        } catch {
            logger.log(.warning, "notification refused", ["requestId": .string(context.requestId), "reason": .string(error.description)])
            throw error
        }
        let stored: Bool
        do {
            stored = try history.record(item)
        } catch {
            logger.log(.error, "notification not stored", ["requestId": .string(context.requestId), "error": .string("\(error)")])
            throw HTTPProblem.unavailable("the notification could not be stored; the App Store will retry")
        }
        metrics.recordNotification(stored: stored)
        return try HTTPResponse.json(["status": stored ? "stored" : "duplicate"])
    }
}

extension NotificationHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/notifications/appstore", policy: .open, handler: handle(_:_:))
    }
}
