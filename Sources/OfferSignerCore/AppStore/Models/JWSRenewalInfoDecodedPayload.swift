/// Decoded, verified renewal information of an auto-renewable subscription.
///
/// Every field is optional, as Apple's own libraries decode it. Unknown fields are ignored and
/// enumerations keep Apple's raw value. Dates are Apple's: integer milliseconds since 1970.
///
/// [JWSRenewalInfoDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload)
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    /// The expiration intent as Apple sent it; see ``expirationIntent``.
    public var rawExpirationIntent: Int32?
    /// The transaction identifier of the original purchase.
    public var originalTransactionId: String?
    /// The product that renews at the next billing period.
    public var autoRenewProductId: String?
    /// The product identifier from App Store Connect.
    public var productId: String?
    /// The renewal status as Apple sent it; see ``autoRenewStatus``.
    public var rawAutoRenewStatus: Int32?
    /// Whether the App Store is trying to renew an expired subscription.
    public var isInBillingRetryPeriod: Bool?
    /// The price increase status as Apple sent it; see ``priceIncreaseStatus``.
    public var rawPriceIncreaseStatus: Int32?
    /// When the billing grace period ends, in milliseconds since 1970.
    public var gracePeriodExpiresDate: Int64?
    /// The offer type as Apple sent it; see ``offerType``.
    public var rawOfferType: Int32?
    /// The promotional offer identifier or offer code reference name.
    public var offerIdentifier: String?
    /// When the App Store signed this renewal information, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String?
    /// The start of the current run of subscription periods, ignoring lapses under 60 days.
    public var recentSubscriptionStartDate: Int64?
    /// When the next renewal happens, in milliseconds since 1970.
    public var renewalDate: Int64?
    /// The ISO 4217 currency code of ``renewalPrice``.
    public var currency: String?
    /// The renewal price in milliunits of ``currency``.
    public var renewalPrice: Int64?
    /// The offer payment mode as Apple sent it; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// The win-back offers the customer is eligible for.
    public var eligibleWinBackOfferIds: [String]?
    /// The UUID the app associated with the purchase (may be empty).
    public var appAccountToken: String?
    /// The identifier of the app download transaction.
    public var appTransactionId: String?
    /// The duration of the offer, an ISO 8601 duration such as `P1M`.
    public var offerPeriod: String?

    /// The expiration intent, or nil when absent or not known yet.
    public var expirationIntent: ExpirationIntent? { rawExpirationIntent.flatMap(ExpirationIntent.init(rawValue:)) }
    /// The renewal status, or nil when absent or not known yet.
    public var autoRenewStatus: AutoRenewStatus? { rawAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
    /// The price increase status, or nil when absent or not known yet.
    public var priceIncreaseStatus: PriceIncreaseStatus? {
        rawPriceIncreaseStatus.flatMap(PriceIncreaseStatus.init(rawValue:))
    }
    /// The offer type, or nil when absent or not known yet.
    public var offerType: OfferType? { rawOfferType.flatMap(OfferType.init(rawValue:)) }
    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
    /// The offer payment mode, or nil when absent or not known yet.
    public var offerDiscountType: OfferDiscountType? {
        rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:))
    }

    enum CodingKeys: String, CodingKey {
        case rawExpirationIntent = "expirationIntent"
        case rawAutoRenewStatus = "autoRenewStatus"
        case rawPriceIncreaseStatus = "priceIncreaseStatus"
        case rawOfferType = "offerType"
        case rawEnvironment = "environment"
        case rawOfferDiscountType = "offerDiscountType"
        case originalTransactionId, autoRenewProductId, productId, isInBillingRetryPeriod
        case gracePeriodExpiresDate, offerIdentifier, signedDate, recentSubscriptionStartDate
        case renewalDate, currency, renewalPrice, eligibleWinBackOfferIds, appAccountToken
        case appTransactionId, offerPeriod
    }
}
