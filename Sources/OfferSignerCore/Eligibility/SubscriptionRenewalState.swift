import Foundation

/// What Apple's renewal info (`JWSRenewalInfoDecodedPayload`) says about one
/// subscription, reduced to what eligibility needs.
public struct SubscriptionRenewalState: Codable, Hashable, Sendable {
    /// The original transaction of the subscription this renewal info is about.
    public var originalTransactionId: String
    /// The product that renews next (Apple's `productId`).
    public var productId: String?
    /// 1 when the subscription renews automatically, 0 when the user turned that off.
    public var autoRenewStatus: Int?
    public var isInBillingRetryPeriod: Bool?
    /// Set while the subscription is in its billing grace period: service continues
    /// until this date while Apple retries the payment.
    public var gracePeriodExpiresDate: Date?
    /// When Apple signed this renewal info; the newest one for a subscription wins.
    public var signedDate: Date

    public init(
        originalTransactionId: String, productId: String? = nil, autoRenewStatus: Int? = nil,
        isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Date? = nil, signedDate: Date
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.signedDate = signedDate
    }

    /// Whether this renewal info puts the subscription in its billing grace period at `now`.
    public func isInGracePeriod(at now: Date) -> Bool {
        gracePeriodExpiresDate.map { now < $0 } ?? false
    }
}
