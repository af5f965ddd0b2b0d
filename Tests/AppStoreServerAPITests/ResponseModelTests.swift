@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

/// Responses shaped like the JSON fixtures of Apple's app-store-server-library (written here afresh).
@Suite("Response models")
struct ResponseModelTests {
    @Test("HistoryResponse, with a field Apple may add later")
    func history() throws {
        let json = #"{"revision":"rev_1","hasMore":true,"bundleId":"com.example.app","appAppleId":5551212,"environment":"Sandbox","#
            + #""signedTransactions":["jws_one","jws_two"],"somethingNew":{"x":1}}"#
        let response = try JSONDecoder().decode(HistoryResponse.self, from: Data(json.utf8))
        #expect(response == HistoryResponse(revision: "rev_1", hasMore: true, bundleId: "com.example.app", appAppleId: 5551212,
                                            rawEnvironment: "Sandbox", signedTransactions: ["jws_one", "jws_two"]))
        #expect(response.environment == .sandbox)
    }

    @Test("StatusResponse: groups, statuses (known and unknown), signed items")
    func statuses() throws {
        let json = #"""
        {"environment":"Production","bundleId":"com.example.app","appAppleId":5551212,"data":[
          {"subscriptionGroupIdentifier":"g1","lastTransactions":[
            {"status":1,"originalTransactionId":"100","signedTransactionInfo":"t1","signedRenewalInfo":"r1"},
            {"status":9,"originalTransactionId":"200","signedTransactionInfo":"t2","signedRenewalInfo":"r2"}]},
          {"subscriptionGroupIdentifier":"g2","lastTransactions":[
            {"status":5,"originalTransactionId":"300","signedTransactionInfo":"t3","signedRenewalInfo":"r3"}]}]}
        """#
        let response = try JSONDecoder().decode(StatusResponse.self, from: Data(json.utf8))
        #expect(response.data.map(\.subscriptionGroupIdentifier) == ["g1", "g2"])
        #expect(response.data.flatMap(\.lastTransactions).map(\.status) == [.active, nil, .revoked])
        #expect(response.data[0].lastTransactions[1].rawStatus == 9)
        #expect(response.data[1].lastTransactions[0] == LastTransactionsItem(rawStatus: 5, originalTransactionId: "300",
                                                                             signedTransactionInfo: "t3", signedRenewalInfo: "r3"))
    }

    @Test("NotificationHistoryResponse: send attempts with Apple's results, known or not")
    func notifications() throws {
        let json = #"""
        {"paginationToken":"5a0c1a9e-0000-4000-8000-000000000001","hasMore":true,"notificationHistory":[
          {"sendAttempts":[{"attemptDate":1765000000000,"sendAttemptResult":"NO_RESPONSE"},
                           {"attemptDate":1765000060000,"sendAttemptResult":"SUCCESS"}],"signedPayload":"p1"},
          {"sendAttempts":[{"attemptDate":1765000000000,"sendAttemptResult":"SOMETHING_NEW"}],"signedPayload":"p2"},
          {"signedPayload":"p3"}]}
        """#
        let response = try JSONDecoder().decode(NotificationHistoryResponse.self, from: Data(json.utf8))
        #expect(response.hasMore && response.paginationToken == "5a0c1a9e-0000-4000-8000-000000000001")
        #expect(response.notificationHistory.map(\.signedPayload) == ["p1", "p2", "p3"])
        #expect(response.notificationHistory[0].sendAttempts.map(\.sendAttemptResult) == [.noResponse, .success])
        #expect(response.notificationHistory[1].sendAttempts[0].sendAttemptResult == nil)
        #expect(response.notificationHistory[1].sendAttempts[0].rawSendAttemptResult == "SOMETHING_NEW")
        #expect(response.notificationHistory[2].sendAttempts.isEmpty)
    }

    @Test("required fields are required", arguments: [
        (#"{"hasMore":false,"signedTransactions":[]}"#, "history"),
        (#"{"revision":"r","hasMore":false,"signedTransactions":[1]}"#, "history"),
        (#"{"environment":"Production","data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[{"status":1}]}]}"#, "statuses"),
        (#"{"hasMore":false,"notificationHistory":[{"sendAttempts":[]}]}"#, "notifications"),
        (#"{"notificationHistory":[]}"#, "notifications"),
    ])
    func strict(json: String, kind: String) {
        let data = Data(json.utf8)
        let decoded: Bool = switch kind {
        case "history": (try? JSONDecoder().decode(HistoryResponse.self, from: data)) != nil
        case "statuses": (try? JSONDecoder().decode(StatusResponse.self, from: data)) != nil
        default: (try? JSONDecoder().decode(NotificationHistoryResponse.self, from: data)) != nil
        }
        #expect(!decoded)
    }

    @Test("the notification history request sends dates in milliseconds and only the filters given")
    func requestBody() throws {
        let request = NotificationHistoryRequest(startDate: Date(timeIntervalSince1970: 1_800_000_000.123),
                                                 endDate: Date(timeIntervalSince1970: 1_800_086_400), notificationType: .subscribed,
                                                 notificationSubtype: .resubscribe, onlyFailures: false)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(request)) as? NSDictionary
        #expect(object == ["startDate": 1_800_000_000_123, "endDate": 1_800_086_400_000, "notificationType": "SUBSCRIBED",
                           "notificationSubtype": "RESUBSCRIBE", "onlyFailures": false] as NSDictionary)
    }
}
