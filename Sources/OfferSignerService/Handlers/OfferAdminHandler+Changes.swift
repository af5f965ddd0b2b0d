import Foundation
import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

extension OfferAdminHandler {
    /// `GET /v1/admin/offers/{offerId}/changes?bundleId=`: the offer's change history, oldest first,
    /// cursor-paged like the audit trail's (`limit` ≤ 1000, `cursor`), for the people who
    /// make the changes.
    func changes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let rule = try Self.stored(request, context, keyRing: keyRing, offers: offers).rule
        let limit = try AuditHandler.limit(request.query, max: 1000)
        let after = try PageCursor.decode(request.query["cursor"])
        let changes = try offers.changes(bundleId: rule.bundleId, offerId: rule.offerId, afterId: after, limit: limit)
        let next = changes.count == limit ? changes.last.map { PageCursor.encode($0.id) } : nil
        return try HTTPResponse.json(Page(items: changes.map(OfferChangeDocument.init), nextCursor: next))
    }
}
