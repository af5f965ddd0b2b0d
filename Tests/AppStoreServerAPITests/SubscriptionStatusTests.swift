@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

@Suite("Get All Subscription Statuses")
struct SubscriptionStatusTests {
    static func statuses(original: String, latest: String) -> [MockStatus] {
        let purchased = Date(timeIntervalSince1970: 1_700_000_000)
        return [
            MockStatus(group: "group-1", status: 2, originalTransactionId: original,
                       signedTransactionInfo: TestSignedData.transaction(id: latest, original: original, purchased: purchased),
                       signedRenewalInfo: TestSignedData.renewal(original: original)),
            MockStatus(group: "group-2", status: 1, originalTransactionId: "8100",
                       signedTransactionInfo: TestSignedData.transaction(id: "8101", original: "8100", product: "com.example.app.plus",
                                                                         purchased: purchased),
                       signedRenewalInfo: TestSignedData.renewal(original: "8100")),
        ]
    }

    @Test("every group's latest transaction and renewal information come back, verified and decoded")
    func allStatuses() throws {
        let testbed = try APITestbed()
        testbed.store.add(MockCustomer(transactionIds: ["8000", "8001"], signedTransactions: [],
                                       statuses: Self.statuses(original: "8000", latest: "8001")))
        let client = try testbed.client()

        let response = try client.allSubscriptionStatuses(transactionId: "8001")

        #expect(response.bundleId == TestSignedData.bundleId && response.environment == .production)
        #expect(response.data.map(\.subscriptionGroupIdentifier) == ["group-1", "group-2"])
        let verified = try response.verifiedStatuses(using: TestSignedData.verifier())
        #expect(verified.map(\.status) == [.expired, .active])
        #expect(verified.map(\.transaction.transactionId) == ["8001", "8101"])
        #expect(verified.map(\.renewalInfo.originalTransactionId) == ["8000", "8100"])
        #expect(verified[0].renewalInfo.autoRenewStatus == .off)
        #expect(testbed.store.requests.map(\.request.path) == ["/inApps/v1/subscriptions/8001"])
    }

    @Test("the status filter is sent as repeated status parameters")
    func statusFilter() throws {
        let testbed = try APITestbed()
        testbed.store.add(MockCustomer(transactionIds: ["8000"], signedTransactions: [], statuses: Self.statuses(original: "8000", latest: "8001")))
        let client = try testbed.client()

        let response = try client.allSubscriptionStatuses(transactionId: "8000", statuses: [.expired, .billingRetry])

        #expect(response.data.flatMap(\.lastTransactions).map(\.status) == [.expired])
        #expect(testbed.store.requests.first?.request.queryValues("status") == ["2", "3"])
    }

    @Test("signed data that fails verification is refused, naming the item")
    func tamperedRenewal() throws {
        let testbed = try APITestbed()
        var statuses = Self.statuses(original: "8000", latest: "8001")
        statuses[1].signedRenewalInfo = TestSignedData.renewal(original: "8100", environment: "Sandbox")
        testbed.store.add(MockCustomer(transactionIds: ["8000"], signedTransactions: [], statuses: statuses))
        let client = try testbed.client()
        let response = try client.allSubscriptionStatuses(transactionId: "8000")

        let refused = thrownError { () throws(AppStoreServerAPIVerificationError) in
            try response.verifiedStatuses(using: TestSignedData.verifier(environments: ["Production"]))
        }
        let mismatch = thrownError { () throws(AppStoreServerAPIVerificationError) in
            try response.verifiedStatuses(using: TestSignedData.verifier())
        }

        #expect(refused == .refused(item: "data[1].lastTransactions[0].signedRenewalInfo", .environmentNotAccepted("Sandbox")))
        #expect(mismatch == .sourceMismatch(item: "data[1].lastTransactions[0].signedRenewalInfo", field: "environment",
                                            expected: "Production", found: "Sandbox"))
        #expect(mismatch?.description == "data[1].lastTransactions[0].signedRenewalInfo: environment 'Sandbox' differs from the response's 'Production'")
    }

    @Test("an unknown customer is transactionNotFound")
    func unknown() throws {
        let testbed = try APITestbed()
        let client = try testbed.client()

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.allSubscriptionStatuses(transactionId: "424242") }

        #expect(error == .transactionNotFound(transactionId: "424242"))
    }
}
