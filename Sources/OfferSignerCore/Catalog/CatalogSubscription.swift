import Foundation

/// An auto-renewable subscription and its offers at Apple.
public struct CatalogSubscription: Codable, Hashable, Sendable {
    /// App Store Connect's ID of the subscription.
    public var appleId: String
    public var productId: String
    public var name: String
    /// Its subscription group's ID.
    public var groupId: String
    /// `ONE_WEEK`, `ONE_MONTH`, … `ONE_YEAR`.
    public var subscriptionPeriod: String?
    /// `APPROVED`, `READY_TO_SUBMIT`, `MISSING_METADATA`, …
    public var state: String?
    /// Its rank in the group (1 is the highest service level).
    public var groupLevel: Int?
    public var promotionalOffers: [CatalogPromotionalOffer]
    public var introductoryOffers: [CatalogIntroductoryOffer]
    public var winBackOffers: [CatalogWinBackOffer]
    public var offerCodes: [CatalogOfferCode]
    /// The regular price in force in each territory on the day of the sync (nil in a catalog
    /// synced before regular prices were read).
    public var regularPrices: [CatalogRegularPrice]?
    /// Regular prices Apple will put in force after the day of the sync.
    public var scheduledPrices: [CatalogRegularPrice]?

    public init(appleId: String, productId: String, name: String, groupId: String, subscriptionPeriod: String?, state: String?,
                groupLevel: Int?, promotionalOffers: [CatalogPromotionalOffer] = [], introductoryOffers: [CatalogIntroductoryOffer] = [],
                winBackOffers: [CatalogWinBackOffer] = [], offerCodes: [CatalogOfferCode] = [], regularPrices: [CatalogRegularPrice]? = nil,
                scheduledPrices: [CatalogRegularPrice]? = nil) {
        self.appleId = appleId
        self.productId = productId
        self.name = name
        self.groupId = groupId
        self.subscriptionPeriod = subscriptionPeriod
        self.state = state
        self.groupLevel = groupLevel
        self.promotionalOffers = promotionalOffers
        self.introductoryOffers = introductoryOffers
        self.winBackOffers = winBackOffers
        self.offerCodes = offerCodes
        self.regularPrices = regularPrices
        self.scheduledPrices = scheduledPrices
    }

    /// The promotional offer StoreKit knows by `offerCode` (an offer rule's `offerId`).
    public func promotionalOffer(_ offerCode: String) -> CatalogPromotionalOffer? {
        promotionalOffers.first { $0.offerCode == offerCode }
    }
}
