@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

@Suite("Get Notification History")
struct NotificationHistoryTests {
    static let windowStart = Date(timeIntervalSince1970: 1_800_000_000)

    /// `count` notifications an hour apart from `windowStart`, the even ones delivered, the odd ones failed.
    static func addNotifications(_ testbed: APITestbed, count: Int, transactionId: (Int) -> String = { _ in "9000" }) -> [String] {
        (0..<count).map { index in
            let uuid = String(format: "00000000-0000-4000-8000-%012d", index)
            let signed = windowStart.addingTimeInterval(Double(index) * 3600)
            let transaction = TestSignedData.transaction(id: transactionId(index), original: transactionId(index), purchased: signed)
            let payload = TestSignedData.notification(type: index % 2 == 0 ? "DID_RENEW" : "EXPIRED", uuid: uuid,
                                                      transaction: transaction, signed: signed)
            let attempt = TestSignedData.ms(signed) + 1000
            testbed.store.add(MockNotification(
                signedDate: TestSignedData.ms(signed), transactionId: transactionId(index),
                notificationType: index % 2 == 0 ? "DID_RENEW" : "EXPIRED", signedPayload: payload,
                attempts: index % 2 == 0 ? [(attempt, "SUCCESS")] : [(attempt, "NO_RESPONSE"), (attempt + 60_000, "TIMED_OUT")]))
            return uuid
        }
    }

    @Test("every page of the window is read with paginationToken, the same body each time")
    func allPages() throws {
        let testbed = try APITestbed(pageSize: 20)
        let uuids = Self.addNotifications(testbed, count: 50)
        let client = try testbed.client()
        // Hours 3 to 44 inclusive: 42 notifications, three pages.
        let request = NotificationHistoryRequest(startDate: Self.windowStart.addingTimeInterval(3 * 3600),
                                                 endDate: Self.windowStart.addingTimeInterval(44 * 3600))

        let items = try client.notificationHistory(request)

        let notifications = try NotificationHistoryResponse(paginationToken: nil, hasMore: false, notificationHistory: items)
            .verifiedNotifications(using: TestSignedData.verifier())
        #expect(notifications.map(\.payload.notificationUUID) == Array(uuids[3...44]))
        #expect(notifications.allSatisfy { $0.transaction?.bundleId == TestSignedData.bundleId })
        #expect(items[0].sendAttempts.map(\.sendAttemptResult) == [.noResponse, .timedOut])
        #expect(items[1].sendAttempts.map(\.sendAttemptResult) == [.success])

        let seen = testbed.store.requests
        #expect(seen.count == 3)
        #expect(seen[0].request.queryValue("paginationToken") == nil)
        #expect(seen[1...].allSatisfy { $0.request.queryValue("paginationToken") != nil })
        #expect(Set(seen.map(\.request.body)).count == 1)
        let body = try JSONSerialization.jsonObject(with: seen[0].request.body) as? [String: Any]
        #expect((body?["startDate"] as? NSNumber)?.int64Value == 1_800_010_800_000)
        #expect((body?["endDate"] as? NSNumber)?.int64Value == 1_800_158_400_000)
        #expect(body?.count == 2)
    }

    @Test("filters go in the body: one customer's failed notifications")
    func filters() throws {
        let testbed = try APITestbed(pageSize: 3)
        testbed.store.add(MockCustomer(transactionIds: ["9000", "9001"], signedTransactions: []))
        let uuids = Self.addNotifications(testbed, count: 12) { index in index < 8 ? "9001" : "9500" }
        let client = try testbed.client()
        let request = NotificationHistoryRequest(startDate: Self.windowStart, endDate: Self.windowStart.addingTimeInterval(86_400),
                                                 transactionId: "9000", onlyFailures: true)

        let items = try client.notificationHistory(request)

        let notifications = try items.map { item throws(SignedDataError) in try item.verifiedNotification(using: TestSignedData.verifier()) }
        #expect(notifications.map(\.payload.notificationUUID) == [uuids[1], uuids[3], uuids[5], uuids[7]])
        let body = try JSONSerialization.jsonObject(with: testbed.store.requests[0].request.body) as? [String: Any]
        #expect(body?["transactionId"] as? String == "9000" && body?["onlyFailures"] as? Bool == true)
    }

    @Test("onPage can stop early, and each page can be asked for by token")
    func stopEarly() throws {
        let testbed = try APITestbed(pageSize: 5)
        _ = Self.addNotifications(testbed, count: 12)
        let client = try testbed.client()
        let request = NotificationHistoryRequest(startDate: Self.windowStart, endDate: Self.windowStart.addingTimeInterval(86_400))

        var sizes: [Int] = []
        let pages = try client.notificationHistory(request) { page in
            sizes.append(page.notificationHistory.count)
            return false
        }
        let first = try client.notificationHistoryPage(request)
        let second = try client.notificationHistoryPage(request, paginationToken: first.paginationToken)

        #expect(pages == 1 && sizes == [5])
        #expect(first.hasMore && second.hasMore && first.paginationToken != second.paginationToken)
        #expect(second.notificationHistory.count == 5)
    }

    @Test("requests Apple would refuse are refused before sending")
    func invalidRequests() throws {
        let testbed = try APITestbed()
        let client = try testbed.client()
        let start = Self.windowStart

        let backwards = thrownError { () throws(AppStoreServerAPIError) in
            try client.notificationHistoryPage(NotificationHistoryRequest(startDate: start, endDate: start))
        }
        let bothFilters = thrownError { () throws(AppStoreServerAPIError) in
            try client.notificationHistoryPage(NotificationHistoryRequest(startDate: start, endDate: start.addingTimeInterval(60),
                                                                          notificationType: .expired, transactionId: "1"))
        }
        let subtypeAlone = thrownError { () throws(AppStoreServerAPIError) in
            try client.notificationHistoryPage(NotificationHistoryRequest(startDate: start, endDate: start.addingTimeInterval(60),
                                                                          notificationSubtype: .voluntary))
        }

        #expect(backwards == .invalidArgument("the notification history window must start before it ends"))
        #expect(bothFilters == .invalidArgument("give a transaction ID or a notification type, not both"))
        #expect(subtypeAlone == .invalidArgument("a notification subtype needs its notification type"))
        #expect(testbed.store.requests.isEmpty)
    }

    @Test("a bad pagination token is Apple's 400 4000014, reported with its code")
    func badToken() throws {
        let testbed = try APITestbed()
        let client = try testbed.client()
        let request = NotificationHistoryRequest(startDate: Self.windowStart, endDate: Self.windowStart.addingTimeInterval(60))

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.notificationHistoryPage(request, paginationToken: "nope") }

        #expect(error == .requestRejected(status: 400, errorCode: 4000014, errorMessage: "Invalid pagination token."))
        #expect(error?.description == "the App Store Server API rejected the request with 400 (4000014: Invalid pagination token.)")
    }
}
