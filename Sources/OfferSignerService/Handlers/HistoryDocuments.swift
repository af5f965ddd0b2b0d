import Foundation
import OfferSignerCore

/// A verified transaction as `GET /v1/users/{userId}/history` shows it: Apple's field names
/// and Apple's units (dates in integer milliseconds since 1970).
struct TransactionDocument: Encodable {
    let transaction: SubscriptionTransaction

    enum Keys: String, CodingKey {
        case transactionId, originalTransactionId, bundleId, productId, subscriptionGroupIdentifier, purchaseDate
        case expiresDate, revocationDate, offerType, offerIdentifier, offerDiscountType, price, storefront
        case appAccountToken, signedDate
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let t = transaction
        try c.encode(t.transactionId, forKey: .transactionId)
        try c.encode(t.originalTransactionId, forKey: .originalTransactionId)
        try c.encode(t.bundleId, forKey: .bundleId)
        try c.encode(t.productId, forKey: .productId)
        try c.encode(t.subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
        try c.encode(t.purchaseDate.milliseconds, forKey: .purchaseDate)
        try c.encode(t.expiresDate?.milliseconds, forKey: .expiresDate)
        try c.encode(t.revocationDate?.milliseconds, forKey: .revocationDate)
        try c.encode(t.offerType, forKey: .offerType)
        try c.encode(t.offerIdentifier, forKey: .offerIdentifier)
        try c.encode(t.offerDiscountType, forKey: .offerDiscountType)
        try c.encode(t.price, forKey: .price)
        try c.encode(t.storefront, forKey: .storefront)
        try c.encode(t.appAccountToken, forKey: .appAccountToken)
        try c.encode(t.signedDate.milliseconds, forKey: .signedDate)
    }
}

/// A verified renewal info as the history shows it, in Apple's units.
struct RenewalDocument: Encodable {
    let renewal: SubscriptionRenewalState

    enum Keys: String, CodingKey {
        case originalTransactionId, productId, autoRenewStatus, isInBillingRetryPeriod, gracePeriodExpiresDate, signedDate
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let r = renewal
        try c.encode(r.originalTransactionId, forKey: .originalTransactionId)
        try c.encode(r.productId, forKey: .productId)
        try c.encode(r.autoRenewStatus, forKey: .autoRenewStatus)
        try c.encode(r.isInBillingRetryPeriod, forKey: .isInBillingRetryPeriod)
        try c.encode(r.gracePeriodExpiresDate?.milliseconds, forKey: .gracePeriodExpiresDate)
        try c.encode(r.signedDate.milliseconds, forKey: .signedDate)
    }
}
