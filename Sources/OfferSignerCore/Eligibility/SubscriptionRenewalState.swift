import Foundation

/// What Apple's renewal info (`JWSRenewalInfoDecodedPayload`) says about one
/// subscription, reduced to what eligibility needs.
public struct SubscriptionRenewalState: Codable, Hashable, Sendable {
    /// The original transaction of the subscription this renewal info is about.
    public var originalTransactionId: String
    /// The App Store environment that signed the renewal info. Facts are computed from one
    /// environment's history only.
    public var environment: AppStoreEnvironment
    /// The product that renews next (Apple's `productId`).
    public var productId: String?
    /// 1 when the subscription renews automatically, 0 when the user turned that off.
    public var autoRenewStatus: Int?
    /// Whether the App Store is still trying to collect the payment of an expired
    /// subscription (billing retry, which includes the billing grace period).
    public var isInBillingRetryPeriod: Bool?
    /// Set while the subscription is in its billing grace period: service continues
    /// until this date while Apple retries the payment.
    public var gracePeriodExpiresDate: Date?
    /// Apple's `expirationIntent`, why the subscription expired: 1 the customer cancelled,
    /// 2 billing error, 3 the customer did not agree to a price increase, 4 the product was
    /// not available, 5 other. Absent while the subscription has not expired.
    public var expirationIntent: Int?
    /// The win-back offers (configured in App Store Connect) that Apple itself offers the
    /// customer now; empty when none.
    public var eligibleWinBackOfferIds: [String]
    /// When Apple signed this renewal info; the newest one for a subscription wins.
    public var signedDate: Date
    /// Apple's `appTransactionId`: the customer's download of the app.
    public var appTransactionId: String?

    public init(
        originalTransactionId: String, environment: AppStoreEnvironment = .production, productId: String? = nil,
        autoRenewStatus: Int? = nil, isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Date? = nil,
        expirationIntent: Int? = nil, eligibleWinBackOfferIds: [String] = [], signedDate: Date,
        appTransactionId: String? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.productId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.signedDate = signedDate
        self.appTransactionId = appTransactionId
    }

    /// ``expirationIntent`` as Apple's ``ExpirationIntent``; nil when absent or not known yet.
    public var knownExpirationIntent: ExpirationIntent? {
        expirationIntent.flatMap(Int32.init(exactly:)).flatMap(ExpirationIntent.init(rawValue:))
    }

    /// Whether this renewal info puts the subscription in its billing grace period at `now`.
    public func isInGracePeriod(at now: Date) -> Bool {
        gracePeriodExpiresDate.map { now < $0 } ?? false
    }
}
