import Foundation

/// An offer code campaign and its terms.
public struct CatalogOfferCode: Codable, Hashable, Sendable {
    public var appleId: String
    public var name: String
    public var duration: String?
    public var offerMode: String?
    public var numberOfPeriods: Int?
    public var active: Bool?
    /// `NEW`, `EXISTING`, `EXPIRED`.
    public var customerEligibilities: [String]
    /// `STACK_WITH_INTRO_OFFERS` or `REPLACE_INTRO_OFFERS`.
    public var offerEligibility: String?

    public init(appleId: String, name: String, duration: String?, offerMode: String?, numberOfPeriods: Int?, active: Bool?,
                customerEligibilities: [String], offerEligibility: String?) {
        self.appleId = appleId
        self.name = name
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        self.active = active
        self.customerEligibilities = customerEligibilities
        self.offerEligibility = offerEligibility
    }
}
