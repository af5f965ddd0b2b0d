import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/retention/appstore`: the App Store's Retention Messaging real-time request (Get
/// Retention Message). No API token: the signed payload is the credential, verified like a
/// notification. Answers Apple's `RealtimeResponseBody`. The time each answer takes, refusals
/// included, is counted in `offer_signer_retention_answer_duration_seconds` (Apple waits 700 ms).
struct RetentionHandler {
    let responder: RetentionResponder
    let rateLimits: RateLimits
    let metrics: Metrics
    let logger: Logger

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let started = ContinuousClock.now
        defer {
            let elapsed = (ContinuousClock.now - started).components
            metrics.recordRetentionAnswer(seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
        let signedPayload = try SignedPayloadBody.read(request, rateLimits: rateLimits, what: "App Store requests from this address")
        let answer: RetentionAnswer
        do {
            answer = try responder.respond(to: signedPayload)
        } catch {
            if case .invalidSignedData(let reason) = error {
                logger.log(.warning, "retention request refused",
                                        ["requestId": .string(context.requestId), "reason": .string(reason.description)])
            }
            throw error
        }
        if logger.isEnabled(.info) {
            logger.log(.info, "retention request answered", [
                "requestId": .string(context.requestId), "answer": .string(answer.kind.rawValue),
                "ruleId": answer.ruleId.map(JSONValue.string) ?? .null, "repeated": .bool(answer.repeated),
            ])
        }
        return HTTPResponse.json(encoded: answer.json)
    }
}

extension RetentionHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/retention/appstore", policy: .open, handler: handle(_:_:))
    }
}
