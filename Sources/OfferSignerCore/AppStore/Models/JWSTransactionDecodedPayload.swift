/// A decoded, verified App Store transaction.
///
/// Every field is optional, as Apple's own libraries decode it: Apple omits fields that do not
/// apply. Unknown fields are ignored and enumerations keep Apple's raw value. Dates are
/// Apple's: integer milliseconds since 1970.
///
/// [JWSTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload)
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// The transaction identifier of the original purchase.
    public var originalTransactionId: String?
    /// The identifier of this transaction.
    public var transactionId: String?
    /// The identifier of subscription-purchase events across devices, including renewals.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product identifier from App Store Connect.
    public var productId: String?
    /// The subscription group the subscription belongs to.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer, in milliseconds since 1970.
    public var purchaseDate: Int64?
    /// The purchase date of the original transaction, in milliseconds since 1970.
    public var originalPurchaseDate: Int64?
    /// When the subscription expires or renews, in milliseconds since 1970.
    public var expiresDate: Int64?
    /// The number of consumables purchased.
    public var quantity: Int32?
    /// The product type as Apple sent it; see ``type``.
    public var rawType: String?
    /// The UUID the app associated with the purchase (may be empty).
    public var appAccountToken: String?
    /// The ownership type as Apple sent it; see ``inAppOwnershipType``.
    public var rawInAppOwnershipType: String?
    /// When the App Store signed this transaction, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The revocation reason as Apple sent it; see ``revocationReason``.
    public var rawRevocationReason: Int32?
    /// When the App Store refunded or revoked the transaction, in milliseconds since 1970.
    public var revocationDate: Int64?
    /// Whether the customer upgraded to another subscription.
    public var isUpgraded: Bool?
    /// The offer type as Apple sent it; see ``offerType``.
    public var rawOfferType: Int32?
    /// The promotional offer identifier or offer code reference name.
    public var offerIdentifier: String?
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String?
    /// The three-letter storefront country code.
    public var storefront: String?
    /// Apple's storefront identifier.
    public var storefrontId: String?
    /// The transaction reason as Apple sent it; see ``transactionReason``.
    public var rawTransactionReason: String?
    /// The ISO 4217 currency code of ``price``.
    public var currency: String?
    /// The price in milliunits of ``currency``.
    public var price: Int64?
    /// The offer payment mode as Apple sent it; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// The identifier of the app download transaction.
    public var appTransactionId: String?
    /// The duration of the offer, an ISO 8601 duration such as `P1M`.
    public var offerPeriod: String?
    /// The kind of refund or revocation as Apple sent it; see ``revocationType``.
    public var rawRevocationType: String?
    /// The refunded share of a prorated refund, in milliunits of a percent.
    public var revocationPercentage: Int32?
    /// The billing plan as Apple sent it, e.g. `MONTHLY_COMMITMENT` for a commitment plan billed monthly.
    public var rawBillingPlanType: String?
    /// A commitment plan's terms (Apple's `commitmentInfo`), as sent.
    public var commitmentInfo: JSONValue?
    /// Advanced Commerce API data (Apple's `advancedCommerceInfo`), as sent.
    public var advancedCommerceInfo: JSONValue?
    /// StoreKit's device verification value, base64 (only in a transaction the device's
    /// StoreKit signed, not in one from the App Store Server API): the SHA-384 of
    /// ``deviceVerificationNonce`` then the device's `AppStore.deviceVerificationID`, both as
    /// lowercased UUID strings. See ``DeviceVerification``.
    public var deviceVerification: String?
    /// The UUID the device verification value was computed with, as sent.
    public var deviceVerificationNonce: String?

    /// The product type, or nil when absent or not known yet.
    public var type: ProductType? { rawType.flatMap(ProductType.init(rawValue:)) }
    /// The ownership type, or nil when absent or not known yet.
    public var inAppOwnershipType: InAppOwnershipType? {
        rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }
    /// The revocation reason, or nil when absent or not known yet.
    public var revocationReason: RevocationReason? { rawRevocationReason.flatMap(RevocationReason.init(rawValue:)) }
    /// The offer type, or nil when absent or not known yet.
    public var offerType: OfferType? { rawOfferType.flatMap(OfferType.init(rawValue:)) }
    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
    /// The transaction reason, or nil when absent or not known yet.
    public var transactionReason: TransactionReason? {
        rawTransactionReason.flatMap(TransactionReason.init(rawValue:))
    }
    /// The offer payment mode, or nil when absent or not known yet.
    public var offerDiscountType: OfferDiscountType? {
        rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:))
    }
    /// The kind of refund or revocation, or nil when absent or not known yet.
    public var revocationType: RevocationType? { rawRevocationType.flatMap(RevocationType.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawType = "type"
        case rawInAppOwnershipType = "inAppOwnershipType"
        case rawRevocationReason = "revocationReason"
        case rawOfferType = "offerType"
        case rawEnvironment = "environment"
        case rawTransactionReason = "transactionReason"
        case rawOfferDiscountType = "offerDiscountType"
        case rawRevocationType = "revocationType"
        case rawBillingPlanType = "billingPlanType"
        case commitmentInfo, advancedCommerceInfo
        case originalTransactionId, transactionId, webOrderLineItemId, bundleId, productId
        case subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity
        case appAccountToken, signedDate, revocationDate, isUpgraded, offerIdentifier, storefront
        case storefrontId, currency, price, appTransactionId, offerPeriod, revocationPercentage
        case deviceVerification, deviceVerificationNonce
    }
}
