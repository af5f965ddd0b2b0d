import Foundation
import OfferSignerCore

/// The columns of the `transactions` and `renewals` tables the stores read, and their rows
/// decoded; the same for both engines.
enum HistoryRows {
    static let transactionColumns = """
        environment, transaction_id, original_transaction_id, bundle_id, product_id, group_id, purchase_ms, expires_ms,
        revocation_ms, revocation_reason, revocation_type, revocation_percentage, is_upgraded, ownership_type,
        transaction_reason, offer_type, offer_id, offer_discount_type, price, storefront, user_id, signed_date_ms,
        app_transaction_id, offer_period, billing_plan_type, commitment_info, advanced_commerce_info
        """

    /// A row of ``transactionColumns``; nil when its environment is not one this build knows.
    static func transaction(_ row: some StoreRow) -> SubscriptionTransaction? {
        guard let environment = environment(row, 0) else { return nil }
        return SubscriptionTransaction(
            transactionId: row.text(1), originalTransactionId: row.text(2), bundleId: row.text(3), productId: row.text(4),
            subscriptionGroupIdentifier: row.text(5), environment: environment, purchaseDate: Date(milliseconds: row.int64(6)),
            expiresDate: row.optionalInt64(7).map(Date.init(milliseconds:)),
            revocationDate: row.optionalInt64(8).map(Date.init(milliseconds:)), revocationReason: row.optionalInt64(9).map(Int.init),
            revocationType: row.optionalText(10), revocationPercentage: row.optionalInt64(11).map(Int.init),
            isUpgraded: row.optionalInt64(12).map { $0 != 0 }, offerType: row.optionalInt64(15).map(Int.init),
            offerIdentifier: row.optionalText(16), offerDiscountType: row.optionalText(17), price: row.optionalInt64(18).map(Int.init),
            storefront: row.optionalText(19), appAccountToken: row.optionalText(20), inAppOwnershipType: row.optionalText(13),
            transactionReason: row.optionalText(14), signedDate: Date(milliseconds: row.int64(21)),
            appTransactionId: row.optionalText(22), offerPeriod: row.optionalText(23), billingPlanType: row.optionalText(24),
            commitmentInfo: row.optionalText(25).flatMap(Self.json), advancedCommerceInfo: row.optionalText(26).flatMap(Self.json))
    }

    static let renewalColumns = """
        environment, original_transaction_id, product_id, auto_renew_status, in_billing_retry, grace_expires_ms,
        expiration_intent, win_back_offer_ids, signed_date_ms, app_transaction_id
        """

    /// A row of ``renewalColumns``; nil when its environment is not one this build knows.
    static func renewal(_ row: some StoreRow) -> SubscriptionRenewalState? {
        guard let environment = environment(row, 0) else { return nil }
        return SubscriptionRenewalState(
            originalTransactionId: row.text(1), environment: environment, productId: row.optionalText(2),
            autoRenewStatus: row.optionalInt64(3).map(Int.init), isInBillingRetryPeriod: row.optionalInt64(4).map { $0 != 0 },
            gracePeriodExpiresDate: row.optionalInt64(5).map(Date.init(milliseconds:)),
            expirationIntent: row.optionalInt64(6).map(Int.init), eligibleWinBackOfferIds: WinBackOfferIds.decode(row.text(7)),
            signedDate: Date(milliseconds: row.int64(8)), appTransactionId: row.optionalText(9))
    }

    /// `column`'s environment, as `AppStoreEnvironment(rawValue: row.text(column))` (nil when
    /// it names none this build knows), compared in place (``StoreRow/text(_:is:)``) rather than
    /// made into a string and matched against the raw values (issue 38). The same answer: the raw
    /// values are ASCII letters with no other text canonically equivalent to them.
    static func environment(_ row: some StoreRow, _ column: Int32) -> AppStoreEnvironment? {
        for environment in environments where row.text(column, is: environment.rawValue) { return environment }
        return nil
    }

    /// Every environment (so a case added to `AppStoreEnvironment` is read too), the usual first.
    private static let environments: [AppStoreEnvironment] =
        [.production] + AppStoreEnvironment.allCases.filter { $0 != .production }

    /// A JSON column's value (written by ``jsonText(_:)``); nil when it does not decode.
    static func json(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The text a JSON column keeps for `value`.
    static func jsonText(_ value: JSONValue?) -> SQLValue {
        .optional(value?.encoded)
    }
}
