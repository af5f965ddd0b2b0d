import Foundation
import OfferSignerCore

/// What a create, re-price or delete did: the offer as it now stands at Apple, what happened,
/// and the catalog's refresh after it. Encoded as the admin API and the command line answer it,
/// with `null` for what is absent.
public struct AppStoreOfferChange: Sendable, Encodable {
    /// What happened at Apple.
    public enum Outcome: String, Sendable, Encodable {
        /// Apple created the offer.
        case created
        /// The offer was already at Apple with the same terms and prices (a retry): nothing sent.
        case alreadyAtApple
        /// Apple replaced its prices.
        case repriced
        /// Apple deleted it.
        case deleted
        /// It was already gone from Apple, deleted by the service before (a retry): nothing sent.
        case alreadyDeleted
    }

    public var bundleId: String
    public var productId: String
    public var outcome: Outcome
    public var offer: CatalogPromotionalOffer
    /// The catalog sync run after the change (nil when none ran: nothing changed).
    public var catalog: CatalogSyncResult?

    enum Keys: String, CodingKey {
        case outcome, bundleId, productId, offerCode, appleId, name, duration, offerMode, numberOfPeriods, prices, catalog
    }

    enum PriceKeys: String, CodingKey { case territory, currency, customerPrice, pricePointId }
    enum SyncKeys: String, CodingKey { case bundleId, outcome, syncedAt, subscriptions, promotionalOffers, error }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(bundleId, forKey: .bundleId)
        try c.encode(productId, forKey: .productId)
        try c.encode(offer.offerCode, forKey: .offerCode)
        try c.encode(offer.appleId, forKey: .appleId)
        try c.encode(offer.name, forKey: .name)
        try c.encode(offer.duration, forKey: .duration)
        try c.encode(offer.offerMode, forKey: .offerMode)
        try c.encode(offer.numberOfPeriods, forKey: .numberOfPeriods)
        var prices = c.nestedUnkeyedContainer(forKey: .prices)
        for price in offer.prices {
            var p = prices.nestedContainer(keyedBy: PriceKeys.self)
            try p.encode(price.territory, forKey: .territory)
            try p.encode(price.currency, forKey: .currency)
            try p.encode(price.customerPrice, forKey: .customerPrice)
            try p.encode(price.pricePointId, forKey: .pricePointId)
        }
        guard let catalog else {
            try c.encodeNil(forKey: .catalog)
            return
        }
        var s = c.nestedContainer(keyedBy: SyncKeys.self, forKey: .catalog)
        try s.encode(catalog.bundleId, forKey: .bundleId)
        try s.encode(catalog.outcome.rawValue, forKey: .outcome)
        try s.encode(catalog.syncedAt.map(RFC3339.string(from:)), forKey: .syncedAt)
        try s.encode(catalog.subscriptions, forKey: .subscriptions)
        try s.encode(catalog.promotionalOffers, forKey: .promotionalOffers)
        try s.encode(catalog.error, forKey: .error)
    }
}
