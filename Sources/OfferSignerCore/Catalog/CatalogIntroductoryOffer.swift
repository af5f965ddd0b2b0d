import Foundation

/// An introductory offer in one territory.
public struct CatalogIntroductoryOffer: Codable, Hashable, Sendable {
    public var appleId: String
    public var duration: String?
    public var offerMode: String?
    public var numberOfPeriods: Int?
    public var territory: String?
    public var currency: String?
    public var customerPrice: String?

    public init(appleId: String, duration: String?, offerMode: String?, numberOfPeriods: Int?, territory: String?, currency: String?,
                customerPrice: String?) {
        self.appleId = appleId
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        self.territory = territory
        self.currency = currency
        self.customerPrice = customerPrice
    }
}
