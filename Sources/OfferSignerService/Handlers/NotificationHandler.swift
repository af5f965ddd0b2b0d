import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/notifications/appstore`: App Store Server Notifications V2. The JWS is the
/// credential: anything that does not verify is refused with 400 and nothing is stored.
struct NotificationHandler {
    let dependencies: ServiceDependencies

    struct Body: Decodable {
        let signedPayload: String
    }

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try RateLimits.check(dependencies.rateLimits.notificationsPerAddress, request.remoteAddress,
                             what: "notifications from this address")
        let body = try request.decodeJSON(Body.self, strictKeys: false)
        let ingestor = HistoryIngestor(verification: dependencies.appStore, history: dependencies.history, clock: dependencies.clock)
        let item: HistoryItem
        do {
            item = try ingestor.verifyNotification(body.signedPayload)
        } catch {
            dependencies.logger.log(.warning, "notification refused", ["requestId": .string(context.requestId), "reason": .string(error.description)])
            throw error
        }
        let stored: Bool
        do {
            stored = try dependencies.history.record(item)
        } catch {
            dependencies.logger.log(.error, "notification not stored", ["requestId": .string(context.requestId), "error": .string("\(error)")])
            throw HTTPProblem.unavailable("the notification could not be stored; the App Store will retry")
        }
        dependencies.metrics.recordNotification(stored: stored)
        return try HTTPResponse.json(["status": stored ? "stored" : "duplicate"])
    }
}
