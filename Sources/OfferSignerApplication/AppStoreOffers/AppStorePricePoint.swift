import Foundation

/// A price point of a subscription in one territory (`subscriptionPricePoints`): what the
/// customer pays and what the developer receives, in the territory's currency. Encoded with
/// `null` for what Apple did not give.
public struct AppStorePricePoint: Sendable, Hashable, Encodable {
    /// App Store Connect's ID of the price point.
    public var id: String
    public var territory: String
    public var currency: String?
    public var customerPrice: String
    public var proceeds: String?

    public init(id: String, territory: String, currency: String?, customerPrice: String, proceeds: String?) {
        self.id = id
        self.territory = territory
        self.currency = currency
        self.customerPrice = customerPrice
        self.proceeds = proceeds
    }

    enum CodingKeys: String, CodingKey { case id, territory, currency, customerPrice, proceeds }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(territory, forKey: .territory)
        try c.encode(currency, forKey: .currency)
        try c.encode(customerPrice, forKey: .customerPrice)
        try c.encode(proceeds, forKey: .proceeds)
    }
}
