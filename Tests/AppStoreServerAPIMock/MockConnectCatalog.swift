import Foundation

/// An app in the mock App Store Connect: its Apple ID (`id`), bundle ID and subscription groups.
public struct MockConnectApp: Sendable {
    public var id: String
    public var bundleId: String
    public var name: String
    public var groups: [MockConnectGroup]

    public init(id: String, bundleId: String, name: String = "App", groups: [MockConnectGroup]) {
        self.id = id
        self.bundleId = bundleId
        self.name = name
        self.groups = groups
    }
}

/// A subscription group: its ID is the `subscriptionGroupIdentifier` of transactions.
public struct MockConnectGroup: Sendable {
    public var id: String
    public var referenceName: String
    public var subscriptions: [MockConnectSubscription]

    public init(id: String, referenceName: String, subscriptions: [MockConnectSubscription]) {
        self.id = id
        self.referenceName = referenceName
        self.subscriptions = subscriptions
    }
}

/// An auto-renewable subscription with its offers and price points.
public struct MockConnectSubscription: Sendable {
    public var id: String
    public var productId: String
    public var name: String
    public var subscriptionPeriod: String
    public var state: String
    public var groupLevel: Int
    public var promotionalOffers: [MockConnectPromotionalOffer]
    public var introductoryOffers: [MockConnectIntroductoryOffer]
    public var winBackOffers: [MockConnectWinBackOffer]
    public var offerCodes: [MockConnectOfferCode]
    public var pricePoints: [MockConnectPricePoint]
    /// Its price schedule (`subscriptionPrices`): each entry names a price point of `pricePoints`.
    public var prices: [MockConnectSubscriptionPrice]

    public init(id: String, productId: String, name: String? = nil, subscriptionPeriod: String = "ONE_MONTH", state: String = "APPROVED",
                groupLevel: Int = 1, promotionalOffers: [MockConnectPromotionalOffer] = [],
                introductoryOffers: [MockConnectIntroductoryOffer] = [], winBackOffers: [MockConnectWinBackOffer] = [],
                offerCodes: [MockConnectOfferCode] = [], pricePoints: [MockConnectPricePoint] = [],
                prices: [MockConnectSubscriptionPrice] = []) {
        self.id = id
        self.productId = productId
        self.name = name ?? productId
        self.subscriptionPeriod = subscriptionPeriod
        self.state = state
        self.groupLevel = groupLevel
        self.promotionalOffers = promotionalOffers
        self.introductoryOffers = introductoryOffers
        self.winBackOffers = winBackOffers
        self.offerCodes = offerCodes
        self.pricePoints = pricePoints
        self.prices = prices
    }
}

/// One entry of a subscription's price schedule (`subscriptionPrices`): a price point from a day on.
public struct MockConnectSubscriptionPrice: Sendable {
    public var id: String
    public var pricePointId: String
    /// `YYYY-MM-DD`, or nil for a price without a start.
    public var startDate: String?

    public init(id: String, pricePointId: String, startDate: String? = nil) {
        self.id = id
        self.pricePointId = pricePointId
        self.startDate = startDate
    }
}

/// A subscription price point of one territory (`subscriptionPricePoints`), with the IDs of its
/// equalizations (the matching points of other territories).
public struct MockConnectPricePoint: Sendable {
    public var id: String
    public var territory: String
    public var customerPrice: String
    public var proceeds: String
    public var equalizations: [String]

    public init(id: String, territory: String, customerPrice: String, proceeds: String? = nil, equalizations: [String] = []) {
        self.id = id
        self.territory = territory
        self.customerPrice = customerPrice
        self.proceeds = proceeds ?? customerPrice
        self.equalizations = equalizations
    }
}

/// A promotional offer (`subscriptionPromotionalOffers`); each price names a territory and,
/// except in a free trial, a price point of the subscription.
public struct MockConnectPromotionalOffer: Sendable {
    public var id: String
    public var offerCode: String
    public var name: String
    public var duration: String
    public var offerMode: String
    public var numberOfPeriods: Int
    public var prices: [(territory: String, pricePointId: String?)]

    public init(id: String, offerCode: String, name: String? = nil, duration: String = "ONE_MONTH", offerMode: String = "PAY_AS_YOU_GO",
                numberOfPeriods: Int = 1, prices: [(territory: String, pricePointId: String?)] = []) {
        self.id = id
        self.offerCode = offerCode
        self.name = name ?? offerCode
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        self.prices = prices
    }
}

/// An introductory offer of one territory (`subscriptionIntroductoryOffers`).
public struct MockConnectIntroductoryOffer: Sendable {
    public var id: String
    public var duration: String
    public var offerMode: String
    public var numberOfPeriods: Int
    public var territory: String
    public var pricePointId: String?

    public init(id: String, duration: String = "ONE_WEEK", offerMode: String = "FREE_TRIAL", numberOfPeriods: Int = 1,
                territory: String = "USA", pricePointId: String? = nil) {
        self.id = id
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        self.territory = territory
        self.pricePointId = pricePointId
    }
}

/// A win-back offer (`winBackOffers`) with its eligibility fields.
public struct MockConnectWinBackOffer: Sendable {
    public var id: String
    public var offerId: String
    public var referenceName: String
    public var duration: String
    public var offerMode: String
    public var periodCount: Int
    public var paidMonths: Int
    public var sinceLastSubscribed: ClosedRange<Int>
    public var waitBetweenOffersMonths: Int?
    public var startDate: String
    public var priority: String

    public init(id: String, offerId: String, referenceName: String? = nil, duration: String = "ONE_MONTH",
                offerMode: String = "PAY_AS_YOU_GO", periodCount: Int = 1, paidMonths: Int = 3,
                sinceLastSubscribed: ClosedRange<Int> = 1...12, waitBetweenOffersMonths: Int? = 6,
                startDate: String = "2026-01-01", priority: String = "NORMAL") {
        self.id = id
        self.offerId = offerId
        self.referenceName = referenceName ?? offerId
        self.duration = duration
        self.offerMode = offerMode
        self.periodCount = periodCount
        self.paidMonths = paidMonths
        self.sinceLastSubscribed = sinceLastSubscribed
        self.waitBetweenOffersMonths = waitBetweenOffersMonths
        self.startDate = startDate
        self.priority = priority
    }
}

/// An offer code (`subscriptionOfferCodes`).
public struct MockConnectOfferCode: Sendable {
    public var id: String
    public var name: String
    public var duration: String
    public var offerMode: String
    public var numberOfPeriods: Int
    public var active: Bool
    public var customerEligibilities: [String]
    public var offerEligibility: String

    public init(id: String, name: String, duration: String = "ONE_MONTH", offerMode: String = "FREE_TRIAL", numberOfPeriods: Int = 1,
                active: Bool = true, customerEligibilities: [String] = ["NEW", "EXPIRED"],
                offerEligibility: String = "STACK_WITH_INTRO_OFFERS") {
        self.id = id
        self.name = name
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        self.active = active
        self.customerEligibilities = customerEligibilities
        self.offerEligibility = offerEligibility
    }
}

/// A failure the mock App Store Connect answers with, instead of the normal answer.
public enum MockConnectFault: Sendable {
    /// 429 with `errors[]` `RATE_LIMIT_EXCEEDED`.
    case rateLimited
    /// A 5xx with `errors[]`.
    case serverError(status: Int)
    /// Any status with one `errors[]` entry.
    case error(status: Int, code: String, title: String, detail: String)
    /// A 200 with this body.
    case body(String)
    /// The request is carried out, then answered with this 5xx (an answer lost on the way).
    case lostAnswer(status: Int)
}
