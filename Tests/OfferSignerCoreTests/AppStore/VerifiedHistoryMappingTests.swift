import Foundation
import Testing
@testable import OfferSignerCore

/// What eligibility keeps of Apple's verified transactions and renewal infos.
@Suite struct VerifiedHistoryMappingTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func transactionKeepsWhatEligibilityReads() throws {
        let payload = try decode(JWSTransactionDecodedPayload.self, AppStoreModelDecodingTests.transactionJSON)
        let transaction = try #require(SubscriptionTransaction(verified: payload))
        #expect(transaction.environment == .localTesting)
        #expect(transaction.revocationDate == Date(milliseconds: 1_698_148_950_000))
        #expect(transaction.revocationReason == 1 && transaction.revocationType == "REFUND_PRORATED")
        #expect(transaction.revocationPercentage == 50_000 && transaction.isUpgraded == true)
        #expect(transaction.inAppOwnershipType == "PURCHASED" && transaction.transactionReason == "PURCHASE")
        #expect(transaction.offerType == 2 && transaction.knownOfferType == .promotionalOffer)
        #expect(transaction.knownOfferDiscountType == .payAsYouGo && transaction.knownRevocationType == .refundProrated)
        // Revoked by an upgrade: not a refund, whatever the revocation type.
        #expect(!transaction.isRefund)
    }

    @Test func transactionWithoutEnvironmentIsNotHistory() throws {
        let json = AppStoreModelDecodingTests.transactionJSON.replacingOccurrences(of: #""environment":"LocalTesting","#, with: "")
        let payload = try decode(JWSTransactionDecodedPayload.self, json)
        #expect(payload.rawEnvironment == nil)
        #expect(SubscriptionTransaction(verified: payload) == nil)
    }

    @Test func renewalInfoKeepsIntentAndWinBackOffers() throws {
        let payload = try decode(JWSRenewalInfoDecodedPayload.self, """
        {"expirationIntent":3,"originalTransactionId":"12345","productId":"com.example.product","autoRenewStatus":0,
         "isInBillingRetryPeriod":false,"signedDate":1698148800000,"environment":"Sandbox",
         "eligibleWinBackOfferIds":["wb_a","wb_b"]}
        """)
        let renewal = try #require(SubscriptionRenewalState(verified: payload))
        #expect(renewal.environment == .sandbox && renewal.expirationIntent == 3)
        #expect(renewal.knownExpirationIntent == .customerDidNotConsentToPriceIncrease)
        #expect(renewal.eligibleWinBackOfferIds == ["wb_a", "wb_b"] && renewal.isInBillingRetryPeriod == false)

        let without = try decode(JWSRenewalInfoDecodedPayload.self,
                                 #"{"originalTransactionId":"1","signedDate":1,"environment":"Production"}"#)
        #expect(try #require(SubscriptionRenewalState(verified: without)).eligibleWinBackOfferIds == [])
    }
}
