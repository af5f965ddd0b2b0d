import Foundation

/// What an offer gives: `duration` (`THREE_DAYS` … `ONE_YEAR`), `offerMode` (`PAY_AS_YOU_GO`,
/// `PAY_UP_FRONT`, `FREE_TRIAL`) and the number of periods.
public struct CatalogPromotionalOffer: Codable, Hashable, Sendable {
    public var appleId: String
    /// The identifier StoreKit uses (an offer rule's `offerId`).
    public var offerCode: String
    public var name: String
    public var duration: String?
    public var offerMode: String?
    public var numberOfPeriods: Int?
    /// Its price in each territory (none in a free trial's).
    public var prices: [CatalogPrice]

    public init(appleId: String, offerCode: String, name: String, duration: String?, offerMode: String?, numberOfPeriods: Int?,
                prices: [CatalogPrice]) {
        self.appleId = appleId
        self.offerCode = offerCode
        self.name = name
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        self.prices = prices
    }
}

/// An offer's price in one territory: the customer price in the territory's currency, from its price point.
public struct CatalogPrice: Codable, Hashable, Sendable {
    /// ISO 3166-1 alpha-3 (`USA`, `FRA`).
    public var territory: String
    /// ISO 4217 (`USD`, `EUR`), from the territory.
    public var currency: String?
    /// The price the customer pays, as Apple writes it (`"4.99"`); nil for a free trial.
    public var customerPrice: String?
    /// The price point's ID at Apple.
    public var pricePointId: String?

    public init(territory: String, currency: String?, customerPrice: String?, pricePointId: String?) {
        self.territory = territory
        self.currency = currency
        self.customerPrice = customerPrice
        self.pricePointId = pricePointId
    }
}
