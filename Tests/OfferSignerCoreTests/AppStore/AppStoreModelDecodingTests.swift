import Foundation
import Testing
@testable import OfferSignerCore

/// Apple's payload models decode Apple's JSON, keep values they do not know, and encode back
/// under Apple's field names.
@Suite struct AppStoreModelDecodingTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    static let transactionJSON = """
    {"transactionId":"23456","originalTransactionId":"12345","webOrderLineItemId":"34343","bundleId":"com.example",
     "productId":"com.example.product","subscriptionGroupIdentifier":"55555","purchaseDate":1698148900000,
     "originalPurchaseDate":1698148800000,"expiresDate":1698149000000,"quantity":1,"type":"Auto-Renewable Subscription",
     "appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","inAppOwnershipType":"PURCHASED","signedDate":1698148900000,
     "revocationReason":1,"revocationDate":1698148950000,"isUpgraded":true,"offerType":2,"offerIdentifier":"abc.123",
     "environment":"LocalTesting","storefront":"USA","storefrontId":"143441","transactionReason":"PURCHASE",
     "currency":"USD","price":10990,"offerDiscountType":"PAY_AS_YOU_GO","appTransactionId":"71134","offerPeriod":"P1Y",
     "revocationType":"REFUND_PRORATED","revocationPercentage":50000}
    """

    @Test func transactionDecodesEveryField() throws {
        let transaction = try decode(JWSTransactionDecodedPayload.self, Self.transactionJSON)
        #expect(transaction.transactionId == "23456" && transaction.originalTransactionId == "12345")
        #expect(transaction.webOrderLineItemId == "34343" && transaction.subscriptionGroupIdentifier == "55555")
        #expect(transaction.purchaseDate == 1_698_148_900_000 && transaction.originalPurchaseDate == 1_698_148_800_000)
        #expect(transaction.expiresDate == 1_698_149_000_000 && transaction.quantity == 1)
        #expect(transaction.type == .autoRenewableSubscription && transaction.inAppOwnershipType == .purchased)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.revocationReason == .refundedDueToIssue && transaction.revocationDate == 1_698_148_950_000)
        #expect(transaction.isUpgraded == true && transaction.offerType == .promotionalOffer)
        #expect(transaction.offerIdentifier == "abc.123" && transaction.environment == .localTesting)
        #expect(transaction.storefront == "USA" && transaction.storefrontId == "143441")
        #expect(transaction.transactionReason == .purchase && transaction.currency == "USD" && transaction.price == 10_990)
        #expect(transaction.offerDiscountType == .payAsYouGo && transaction.appTransactionId == "71134")
        #expect(transaction.offerPeriod == "P1Y" && transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50_000)
    }

    @Test func renewalInfoDecodesEveryField() throws {
        let renewal = try decode(JWSRenewalInfoDecodedPayload.self, """
        {"expirationIntent":1,"originalTransactionId":"12345","autoRenewProductId":"com.example.product.2",
         "productId":"com.example.product","autoRenewStatus":1,"isInBillingRetryPeriod":true,"priceIncreaseStatus":0,
         "gracePeriodExpiresDate":1698148900000,"offerType":2,"offerIdentifier":"abc.123","signedDate":1698148800000,
         "environment":"LocalTesting","recentSubscriptionStartDate":1698148800000,"renewalDate":1698148850000,
         "currency":"USD","renewalPrice":9990,"offerDiscountType":"PAY_AS_YOU_GO","eligibleWinBackOfferIds":["a","b"],
         "appAccountToken":"","appTransactionId":"71134","offerPeriod":"P1Y"}
        """)
        #expect(renewal.expirationIntent == .customerCancelled && renewal.autoRenewStatus == .on)
        #expect(renewal.originalTransactionId == "12345" && renewal.autoRenewProductId == "com.example.product.2")
        #expect(renewal.productId == "com.example.product" && renewal.isInBillingRetryPeriod == true)
        #expect(renewal.priceIncreaseStatus == .customerHasNotResponded && renewal.gracePeriodExpiresDate == 1_698_148_900_000)
        #expect(renewal.offerType == .promotionalOffer && renewal.offerIdentifier == "abc.123")
        #expect(renewal.signedDate == 1_698_148_800_000 && renewal.environment == .localTesting)
        #expect(renewal.recentSubscriptionStartDate == 1_698_148_800_000 && renewal.renewalDate == 1_698_148_850_000)
        #expect(renewal.currency == "USD" && renewal.renewalPrice == 9_990 && renewal.offerDiscountType == .payAsYouGo)
        #expect(renewal.eligibleWinBackOfferIds == ["a", "b"] && renewal.appAccountToken == "")
        #expect(renewal.appTransactionId == "71134" && renewal.offerPeriod == "P1Y")
    }

    @Test func unknownFieldsAndFutureValuesAreKept() throws {
        let transaction = try decode(JWSTransactionDecodedPayload.self, """
        {"type":"Subscription Bundle","offerType":9,"environment":"Staging","brandNewField":{"nested":[1,2]},"bundleId":"b"}
        """)
        #expect(transaction.type == nil && transaction.rawType == "Subscription Bundle")
        #expect(transaction.offerType == nil && transaction.rawOfferType == 9)
        #expect(transaction.environment == nil && transaction.rawEnvironment == "Staging")
        #expect(transaction.bundleId == "b")
        let revoked = try decode(JWSTransactionDecodedPayload.self, #"{"revocationType":"ASSIGNMENT_REVOKE"}"#)
        #expect(revoked.revocationType == nil && revoked.rawRevocationType == "ASSIGNMENT_REVOKE")

        let notification = try decode(ResponseBodyV2DecodedPayload.self, """
        {"notificationType":"SOMETHING_NEW","subtype":"ALSO_NEW","notificationUUID":"u","appData":{"x":1},
         "data":{"bundleId":"b","status":9,"environment":"Sandbox"}}
        """)
        #expect(notification.notificationType == nil && notification.rawNotificationType == "SOMETHING_NEW")
        #expect(notification.subtype == nil && notification.rawSubtype == "ALSO_NEW")
        #expect(notification.data?.status == nil && notification.data?.rawStatus == 9)
        #expect(notification.data?.environment == .sandbox)
    }

    @Test func encodingUsesApplesFieldNames() throws {
        let transaction = try decode(JWSTransactionDecodedPayload.self, Self.transactionJSON)
        let data = try JSONEncoder().encode(transaction)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["type"] as? String == "Auto-Renewable Subscription")
        #expect(object["environment"] as? String == "LocalTesting")
        #expect(object["revocationType"] as? String == "REFUND_PRORATED" && object["rawRevocationType"] == nil)
        #expect(object["rawType"] == nil)
        #expect(try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: data) == transaction)

        let notification = try decode(ResponseBodyV2DecodedPayload.self, #"{"notificationType":"TEST","notificationUUID":"u"}"#)
        let encoded = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(notification)) as? [String: Any])
        #expect(encoded["notificationType"] as? String == "TEST")
    }

    @Test func externalPurchaseTokenEnvironmentFollowsApple() throws {
        let sandbox = try decode(ExternalPurchaseToken.self, #"{"externalPurchaseId":"SANDBOX_1","bundleId":"b"}"#)
        let production = try decode(ExternalPurchaseToken.self, #"{"externalPurchaseId":"1","bundleId":"b"}"#)
        #expect(sandbox.environment == .sandbox && production.environment == .production)
    }
}
