import OfferSignerCore

/// What an offer is known by: its app and its offer ID.
struct OfferKey: Hashable, Comparable {
    let bundleId: String
    let offerId: String

    init(bundleId: String, offerId: String) {
        self.bundleId = bundleId
        self.offerId = offerId
    }

    init(_ rule: OfferRule) {
        self.init(bundleId: rule.bundleId, offerId: rule.offerId)
    }

    static func < (a: OfferKey, b: OfferKey) -> Bool {
        (a.bundleId, a.offerId) < (b.bundleId, b.offerId)
    }
}
