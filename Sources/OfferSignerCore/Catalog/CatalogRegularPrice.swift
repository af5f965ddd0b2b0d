import Foundation

/// A subscription's regular price in one territory, from its price schedule at Apple
/// (`subscriptionPrices`): the customer price of its price point, the territory's currency, and
/// the day it takes effect (nil: since the subscription was first priced).
public struct CatalogRegularPrice: Codable, Hashable, Sendable {
    /// ISO 3166-1 alpha-3 (`USA`, `FRA`).
    public var territory: String
    /// ISO 4217 (`USD`, `EUR`), from the territory.
    public var currency: String?
    /// The price the customer pays each period, as Apple writes it (`"9.99"`).
    public var customerPrice: String?
    /// `YYYY-MM-DD`, the first day of this price; nil when it has no start.
    public var startDate: String?
    /// The price point's ID at Apple.
    public var pricePointId: String?

    public init(territory: String, currency: String?, customerPrice: String?, startDate: String?, pricePointId: String?) {
        self.territory = territory
        self.currency = currency
        self.customerPrice = customerPrice
        self.startDate = startDate
        self.pricePointId = pricePointId
    }

    /// The schedule `prices` split at `day` (`YYYY-MM-DD`): per territory the price in force
    /// that day (the latest start on or before it, or the one without a start), and the prices
    /// that start after it, each list by territory, then start.
    public static func split(_ prices: [CatalogRegularPrice], on day: String) -> (current: [CatalogRegularPrice], scheduled: [CatalogRegularPrice]) {
        var current: [String: CatalogRegularPrice] = [:]
        var scheduled: [CatalogRegularPrice] = []
        for price in prices {
            if let start = price.startDate, start > day {
                scheduled.append(price)
                continue
            }
            if let held = current[price.territory], (held.startDate ?? "") > (price.startDate ?? "") { continue }
            current[price.territory] = price
        }
        let order: (CatalogRegularPrice, CatalogRegularPrice) -> Bool = {
            ($0.territory, $0.startDate ?? "") < ($1.territory, $1.startDate ?? "")
        }
        return (current.values.sorted(by: order), scheduled.sorted(by: order))
    }
}
