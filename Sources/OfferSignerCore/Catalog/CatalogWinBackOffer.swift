import Foundation

/// A win-back offer with Apple's eligibility fields.
public struct CatalogWinBackOffer: Codable, Hashable, Sendable {
    public var appleId: String
    /// The identifier StoreKit uses.
    public var offerId: String
    public var referenceName: String?
    public var duration: String?
    public var offerMode: String?
    public var periodCount: Int?
    public var paidSubscriptionDurationInMonths: Int?
    public var timeSinceLastSubscribedMinMonths: Int?
    public var timeSinceLastSubscribedMaxMonths: Int?
    public var waitBetweenOffersInMonths: Int?
    public var startDate: String?
    public var endDate: String?
    public var priority: String?

    public init(appleId: String, offerId: String, referenceName: String?, duration: String?, offerMode: String?, periodCount: Int?,
                paidSubscriptionDurationInMonths: Int?, timeSinceLastSubscribedMinMonths: Int?, timeSinceLastSubscribedMaxMonths: Int?,
                waitBetweenOffersInMonths: Int?, startDate: String?, endDate: String?, priority: String?) {
        self.appleId = appleId
        self.offerId = offerId
        self.referenceName = referenceName
        self.duration = duration
        self.offerMode = offerMode
        self.periodCount = periodCount
        self.paidSubscriptionDurationInMonths = paidSubscriptionDurationInMonths
        self.timeSinceLastSubscribedMinMonths = timeSinceLastSubscribedMinMonths
        self.timeSinceLastSubscribedMaxMonths = timeSinceLastSubscribedMaxMonths
        self.waitBetweenOffersInMonths = waitBetweenOffersInMonths
        self.startDate = startDate
        self.endDate = endDate
        self.priority = priority
    }
}
