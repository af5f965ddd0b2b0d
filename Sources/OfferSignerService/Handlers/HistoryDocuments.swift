import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore

/// A verified transaction as `GET /v1/users/{userId}/history` shows it: Apple's field names
/// and Apple's units (dates in integer milliseconds since 1970), with the environment that
/// signed it.
struct TransactionDocument: Encodable {
    let transaction: SubscriptionTransaction

    enum Keys: String, CodingKey {
        case transactionId, originalTransactionId, environment, bundleId, productId, subscriptionGroupIdentifier, purchaseDate
        case expiresDate, revocationDate, revocationReason, revocationType, revocationPercentage, isUpgraded
        case inAppOwnershipType, transactionReason, offerType, offerIdentifier, offerDiscountType, price, storefront
        case appAccountToken, signedDate, appTransactionId, offerPeriod, billingPlanType, commitmentInfo, advancedCommerceInfo
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let t = transaction
        try c.encode(t.transactionId, forKey: .transactionId)
        try c.encode(t.originalTransactionId, forKey: .originalTransactionId)
        try c.encode(t.environment, forKey: .environment)
        try c.encode(t.bundleId, forKey: .bundleId)
        try c.encode(t.productId, forKey: .productId)
        try c.encode(t.subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
        try c.encode(t.purchaseDate.milliseconds, forKey: .purchaseDate)
        try c.encode(t.expiresDate?.milliseconds, forKey: .expiresDate)
        try c.encode(t.revocationDate?.milliseconds, forKey: .revocationDate)
        try c.encode(t.revocationReason, forKey: .revocationReason)
        try c.encode(t.revocationType, forKey: .revocationType)
        try c.encode(t.revocationPercentage, forKey: .revocationPercentage)
        try c.encode(t.isUpgraded, forKey: .isUpgraded)
        try c.encode(t.inAppOwnershipType, forKey: .inAppOwnershipType)
        try c.encode(t.transactionReason, forKey: .transactionReason)
        try c.encode(t.offerType, forKey: .offerType)
        try c.encode(t.offerIdentifier, forKey: .offerIdentifier)
        try c.encode(t.offerDiscountType, forKey: .offerDiscountType)
        try c.encode(t.price, forKey: .price)
        try c.encode(t.storefront, forKey: .storefront)
        try c.encode(t.appAccountToken, forKey: .appAccountToken)
        try c.encode(t.signedDate.milliseconds, forKey: .signedDate)
        try c.encode(t.appTransactionId, forKey: .appTransactionId)
        try c.encode(t.offerPeriod, forKey: .offerPeriod)
        try c.encode(t.billingPlanType, forKey: .billingPlanType)
        try c.encode(t.commitmentInfo, forKey: .commitmentInfo)
        try c.encode(t.advancedCommerceInfo, forKey: .advancedCommerceInfo)
    }
}

/// A verified renewal info as the history shows it, in Apple's units, with its environment.
struct RenewalDocument: Encodable {
    let renewal: SubscriptionRenewalState

    enum Keys: String, CodingKey {
        case originalTransactionId, environment, productId, autoRenewStatus, isInBillingRetryPeriod, gracePeriodExpiresDate
        case expirationIntent, eligibleWinBackOfferIds, signedDate, appTransactionId
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let r = renewal
        try c.encode(r.originalTransactionId, forKey: .originalTransactionId)
        try c.encode(r.environment, forKey: .environment)
        try c.encode(r.productId, forKey: .productId)
        try c.encode(r.autoRenewStatus, forKey: .autoRenewStatus)
        try c.encode(r.isInBillingRetryPeriod, forKey: .isInBillingRetryPeriod)
        try c.encode(r.gracePeriodExpiresDate?.milliseconds, forKey: .gracePeriodExpiresDate)
        try c.encode(r.expirationIntent, forKey: .expirationIntent)
        try c.encode(r.eligibleWinBackOfferIds, forKey: .eligibleWinBackOfferIds)
        try c.encode(r.signedDate.milliseconds, forKey: .signedDate)
        try c.encode(r.appTransactionId, forKey: .appTransactionId)
    }
}

/// A rescinding or clearing of consent, as the history and the admin API show it (dates in
/// RFC 3339).
struct ConsentEventDocument: Encodable {
    let event: ConsentEvent

    enum Keys: String, CodingKey {
        case id, appTransactionId, environment, bundleId, action, at, recordedAt, notificationUUID, actor, reason
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(event.id, forKey: .id)
        try c.encode(event.appTransactionId, forKey: .appTransactionId)
        try c.encode(event.environment, forKey: .environment)
        try c.encode(event.bundleId, forKey: .bundleId)
        try c.encode(event.action.rawValue, forKey: .action)
        try c.encode(RFC3339.string(from: event.at), forKey: .at)
        try c.encode(RFC3339.string(from: event.recordedAt), forKey: .recordedAt)
        try c.encode(event.notificationUUID, forKey: .notificationUUID)
        try c.encode(event.actor, forKey: .actor)
        try c.encode(event.reason, forKey: .reason)
    }
}
