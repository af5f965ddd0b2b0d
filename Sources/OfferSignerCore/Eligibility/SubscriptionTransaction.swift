import Foundation

/// A verified App Store transaction of an auto-renewable subscription, reduced to what
/// eligibility needs. Field names and units follow Apple's `JWSTransactionDecodedPayload`.
public struct SubscriptionTransaction: Codable, Hashable, Sendable {
    /// Apple's `offerType` for an introductory offer.
    public static let introductoryOfferType = 1
    /// Apple's `offerType` for a promotional offer.
    public static let promotionalOfferType = 2
    /// Apple's `offerType` for an offer code.
    public static let offerCodeOfferType = 3
    /// Apple's `offerType` for a win-back offer.
    public static let winBackOfferType = 4
    /// Apple's `offerDiscountType` for a free trial.
    public static let freeTrialDiscountType = "FREE_TRIAL"

    public var transactionId: String
    public var originalTransactionId: String
    public var bundleId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String
    public var purchaseDate: Date
    /// When this period ends; `nil` only for data that is not an auto-renewable subscription.
    public var expiresDate: Date?
    /// Set when the App Store refunded the transaction or revoked it from Family Sharing.
    public var revocationDate: Date?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back; kept raw so that values
    /// Apple adds later still decode.
    public var offerType: Int?
    public var offerIdentifier: String?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT`, kept raw.
    public var offerDiscountType: String?
    /// The price in milliunits of the currency, as Apple gives it.
    public var price: Int?
    /// The ISO 3166-1 alpha-3 storefront code (`USA`).
    public var storefront: String?
    public var appAccountToken: String?
    /// When Apple signed this transaction; the newest signed copy of a transaction wins.
    public var signedDate: Date

    public init(
        transactionId: String, originalTransactionId: String, bundleId: String, productId: String,
        subscriptionGroupIdentifier: String, purchaseDate: Date, expiresDate: Date?, revocationDate: Date? = nil,
        offerType: Int? = nil, offerIdentifier: String? = nil, offerDiscountType: String? = nil,
        price: Int? = nil, storefront: String? = nil, appAccountToken: String? = nil, signedDate: Date
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.price = price
        self.storefront = storefront
        self.appAccountToken = appAccountToken
        self.signedDate = signedDate
    }

    /// Whether the user paid for this period: false for a free-trial offer period
    /// (`offerDiscountType` `FREE_TRIAL`, or, when Apple gave no discount type, an
    /// introductory offer at price 0).
    public var isPaid: Bool {
        if let offerDiscountType {
            return offerDiscountType != Self.freeTrialDiscountType
        }
        return !(offerType == Self.introductoryOfferType && price == 0)
    }

    /// Whether this transaction redeemed a promotional or win-back offer.
    public var isOfferRedemption: Bool {
        offerType == Self.promotionalOfferType || offerType == Self.winBackOfferType
    }

    /// The end of the period: the earlier of expiry and revocation. A transaction without
    /// an expiry date is taken to end where it began.
    public var endDate: Date {
        let expiry = expiresDate ?? purchaseDate
        guard let revocationDate else { return expiry }
        return min(expiry, revocationDate)
    }
}
