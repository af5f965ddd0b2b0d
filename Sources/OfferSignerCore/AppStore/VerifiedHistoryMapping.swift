import Foundation

extension SubscriptionTransaction {
    /// The eligibility view of a verified transaction; nil when it is not an auto-renewable
    /// subscription or lacks a field history needs (the environment included: verified data
    /// always names one).
    public init?(verified payload: JWSTransactionDecodedPayload) {
        guard payload.type == nil || payload.type == .autoRenewableSubscription,
              let transactionId = payload.transactionId, let originalTransactionId = payload.originalTransactionId,
              let bundleId = payload.bundleId, let productId = payload.productId,
              let group = payload.subscriptionGroupIdentifier, let environment = payload.environment,
              let purchaseDate = payload.purchaseDate, let signedDate = payload.signedDate else { return nil }
        self.init(
            transactionId: transactionId, originalTransactionId: originalTransactionId, bundleId: bundleId,
            productId: productId, subscriptionGroupIdentifier: group, environment: environment,
            purchaseDate: Date(milliseconds: purchaseDate), expiresDate: payload.expiresDate.map(Date.init(milliseconds:)),
            revocationDate: payload.revocationDate.map(Date.init(milliseconds:)),
            revocationReason: payload.rawRevocationReason.map(Int.init), revocationType: payload.rawRevocationType,
            revocationPercentage: payload.revocationPercentage.map(Int.init), isUpgraded: payload.isUpgraded,
            offerType: payload.rawOfferType.map(Int.init), offerIdentifier: payload.offerIdentifier,
            offerDiscountType: payload.rawOfferDiscountType, price: payload.price.map { Int(clamping: $0) },
            storefront: payload.storefront, appAccountToken: payload.appAccountToken.flatMap { $0.isEmpty ? nil : $0 },
            inAppOwnershipType: payload.rawInAppOwnershipType, transactionReason: payload.rawTransactionReason,
            signedDate: Date(milliseconds: signedDate), appTransactionId: payload.appTransactionId.flatMap { $0.isEmpty ? nil : $0 },
            offerPeriod: payload.offerPeriod, billingPlanType: payload.rawBillingPlanType, commitmentInfo: payload.commitmentInfo,
            advancedCommerceInfo: payload.advancedCommerceInfo)
    }
}

extension SubscriptionRenewalState {
    /// The eligibility view of verified renewal info; nil without `originalTransactionId`,
    /// `signedDate` or a known `environment`.
    public init?(verified payload: JWSRenewalInfoDecodedPayload) {
        guard let original = payload.originalTransactionId, let environment = payload.environment,
              let signedDate = payload.signedDate else { return nil }
        self.init(
            originalTransactionId: original, environment: environment, productId: payload.productId ?? payload.autoRenewProductId,
            autoRenewStatus: payload.rawAutoRenewStatus.map(Int.init), isInBillingRetryPeriod: payload.isInBillingRetryPeriod,
            gracePeriodExpiresDate: payload.gracePeriodExpiresDate.map(Date.init(milliseconds:)),
            expirationIntent: payload.rawExpirationIntent.map(Int.init),
            eligibleWinBackOfferIds: payload.eligibleWinBackOfferIds ?? [],
            signedDate: Date(milliseconds: signedDate), appTransactionId: payload.appTransactionId.flatMap { $0.isEmpty ? nil : $0 })
    }
}
