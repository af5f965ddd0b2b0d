import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Consent rescinded by the App Store (`RESCIND_CONSENT`) and cleared by operators:
/// `GET /v1/admin/consents` lists every event (auditors, admins), `POST
/// /v1/admin/consents/{appTransactionId}/clear` lifts one (admins), with who and why, as does
/// `POST /v1/admin/consents/events/{eventId}/clear` by the rescinding's event ID (for an app
/// transaction ID no path can carry).
struct ConsentHandler {
    let consents: any ConsentStore
    let clearing: ConsentClearing

    struct ClearBody: Decodable {
        let reason: String
    }

    struct Cleared: Encodable {
        let cleared: [ConsentEventDocument]
    }

    /// Every rescinding and clearing, oldest first (`?bundleId=`, paged).
    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let events = try consents.events(bundleId: request.query["bundleId"], afterId: page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(events, position: \.id, ConsentEventDocument.init))
    }

    /// Clears the rescinded consent of the app download, recording the caller and the reason.
    func clear(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let appTransactionId = try context.parameters.require("appTransactionId")
        let body = try request.decodeJSON(ClearBody.self)
        return try answer { try clearing.clear(appTransactionId: appTransactionId, reason: body.reason, by: context.callerName) }
    }

    /// Clears the consent the rescinding with this event ID withdrew, recording the caller and the reason.
    func clearEvent(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let text = try context.parameters.require("eventId")
        guard text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let eventId = Int64(text), eventId > 0 else {
            throw HTTPProblem.invalidRequest("the event ID must be a positive integer (the 'id' of GET /v1/admin/consents)")
        }
        let body = try request.decodeJSON(ClearBody.self)
        return try answer { try clearing.clear(eventId: eventId, reason: body.reason, by: context.callerName) }
    }

    /// The clearings made, or the refusal as a problem.
    private func answer(_ clear: () throws -> [ConsentEvent]) throws -> HTTPResponse {
        do {
            return try HTTPResponse.json(Cleared(cleared: try clear().map(ConsentEventDocument.init)))
        } catch let refusal as ConsentClearing.Refusal {
            switch refusal {
            case .notRescinded, .noSuchEvent: throw HTTPProblem.notFound(refusal.description)
            case .invalidAppTransactionId, .invalidReason, .notARescinding: throw HTTPProblem.invalidRequest(refusal.description)
            }
        }
    }
}

extension ConsentHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/admin/consents", policy: .roles([.auditor]), query: ["bundleId", "limit", "cursor"], handler: list(_:_:))
        router.add("POST", "/v1/admin/consents/{appTransactionId}/clear", policy: .roles([.admin]), handler: clear(_:_:))
        router.add("POST", "/v1/admin/consents/events/{eventId}/clear", policy: .roles([.admin]), handler: clearEvent(_:_:))
    }
}
