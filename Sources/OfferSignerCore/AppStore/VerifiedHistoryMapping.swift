import Foundation

extension SubscriptionTransaction {
    /// The eligibility view of a verified transaction; nil when it is not an auto-renewable
    /// subscription or lacks a field history needs.
    public init?(verified payload: JWSTransactionDecodedPayload) {
        guard payload.type == nil || payload.type == .autoRenewableSubscription,
              let transactionId = payload.transactionId, let originalTransactionId = payload.originalTransactionId,
              let bundleId = payload.bundleId, let productId = payload.productId,
              let group = payload.subscriptionGroupIdentifier, let purchaseDate = payload.purchaseDate,
              let signedDate = payload.signedDate else { return nil }
        self.init(
            transactionId: transactionId, originalTransactionId: originalTransactionId, bundleId: bundleId,
            productId: productId, subscriptionGroupIdentifier: group, purchaseDate: Date(milliseconds: purchaseDate),
            expiresDate: payload.expiresDate.map(Date.init(milliseconds:)),
            revocationDate: payload.revocationDate.map(Date.init(milliseconds:)),
            offerType: payload.rawOfferType.map(Int.init), offerIdentifier: payload.offerIdentifier,
            offerDiscountType: payload.rawOfferDiscountType, price: payload.price.map { Int(clamping: $0) },
            storefront: payload.storefront, appAccountToken: payload.appAccountToken.flatMap { $0.isEmpty ? nil : $0 },
            signedDate: Date(milliseconds: signedDate))
    }
}

extension SubscriptionRenewalState {
    /// The eligibility view of verified renewal info; nil without `originalTransactionId` or `signedDate`.
    public init?(verified payload: JWSRenewalInfoDecodedPayload) {
        guard let original = payload.originalTransactionId, let signedDate = payload.signedDate else { return nil }
        self.init(
            originalTransactionId: original, productId: payload.productId ?? payload.autoRenewProductId,
            autoRenewStatus: payload.rawAutoRenewStatus.map(Int.init), isInBillingRetryPeriod: payload.isInBillingRetryPeriod,
            gracePeriodExpiresDate: payload.gracePeriodExpiresDate.map(Date.init(milliseconds:)),
            signedDate: Date(milliseconds: signedDate))
    }
}
