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
        let page = try PageRequest(request.query)
        let changes = try offers.changes(bundleId: rule.bundleId, offerId: rule.offerId, afterId: page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id) { RuleChangeDocument($0) })
    }
}
