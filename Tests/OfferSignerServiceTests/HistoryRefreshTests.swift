import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import Testing

/// `POST /v1/admin/history/refresh`: one customer's history from the App Store Server API, now.
@Suite("History refresh endpoint")
struct HistoryRefreshTests {
    static let day = AppStoreAPIHarness.day

    func refresh(_ harness: AppStoreAPIHarness, _ body: String, role: Role = .admin) -> TestResponse {
        harness.env.send("POST", "/v1/admin/history/refresh", role: role, json: body)
    }

    @Test("a customer who resubscribed is refreshed: stored, and no longer offered the win-back price")
    func resubscribed() throws {
        let harness = try AppStoreAPIHarness()
        try harness.env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true)))
        harness.addCustomer(user: "Support-Case", firstId: 7_000_000, months: 3, lapsedDays: 100)
        // What the service knew: the lapsed subscription.
        _ = try harness.sync.store(try harness.sync.fetch(bundleId: TestEnvironment.bundleId, transactionId: "7000000"))
        #expect(harness.verdicts("support-case")["winback"] == [])
        // Yesterday the customer subscribed again, which the service missed: Apple's history has a new period.
        let now = harness.env.now
        let old = (0..<3).map { (month: Int) -> String in
            let start: Date = now - Double(190 - month * 30) * Self.day
            return TestSignedData.transaction(id: "700000\(month)", original: "7000000", purchased: start, expires: start + 30 * Self.day,
                                              appAccountToken: "Support-Case", signed: now - Self.day)
        }
        let renewed = TestSignedData.transaction(id: "7100000", original: "7000000", purchased: now - Self.day, expires: now + 29 * Self.day,
                                                 appAccountToken: "Support-Case", signed: now - Self.day)
        harness.store.add(MockCustomer(transactionIds: ["7000000", "7000001", "7000002", "7100000"], signedTransactions: old + [renewed],
                                       statuses: [MockStatus(group: TestSignedData.group, status: 1, originalTransactionId: "7000000",
                                                             signedTransactionInfo: renewed,
                                                             signedRenewalInfo: TestSignedData.renewal(original: "7000000", autoRenewStatus: 1,
                                                                                                       signed: now))]))
        let response = refresh(harness, #"{"bundleId": "com.example.app", "transactionId": "7100000"}"#)
        #expect(response.status == 200, "\(response.json)")
        #expect(response.json["environment"] as? String == "Production")
        #expect(response.json["transactions"] as? Int == 5 && response.json["renewals"] as? Int == 1)
        #expect(response.json["accepted"] as? Int == 2 && response.json["duplicates"] as? Int == 4, "the new period and the renewal info are new")
        #expect(response.json["userIds"] as? [String] == ["support-case"])
        #expect(harness.verdicts("support-case")["winback"] == ["requireLapsed"])
        // Refreshing again changes nothing.
        let again = refresh(harness, #"{"transactionId": "7100000"}"#)
        #expect(again.status == 200 && again.json["accepted"] as? Int == 0 && again.json["duplicates"] as? Int == 6)
    }

    @Test("refusals: not found 404, bad ID 400, only admin, Apple failing 502, forged data 502 with nothing stored")
    func refusals() throws {
        let harness = try AppStoreAPIHarness()
        let missing = refresh(harness, #"{"transactionId": "123"}"#)
        #expect(missing.status == 404 && missing.code == "not_found" && missing.text.contains("4040010"))
        #expect(refresh(harness, #"{"transactionId": "12a"}"#).code == "invalid_request")
        #expect(refresh(harness, #"{"transactionId": "1", "extra": 1}"#).code == "invalid_request")
        #expect(refresh(harness, #"{"bundleId": "com.other", "transactionId": "1"}"#).status == 404)
        #expect(refresh(harness, #"{"transactionId": "1"}"#, role: .marketing).status == 403)

        harness.addCustomer(user: "u", firstId: 7_200_000)
        harness.store.failAlways(transactionId: "7200000", with: .serverError(status: 503, code: 5000001))
        let failing = refresh(harness, #"{"transactionId": "7200000"}"#)
        #expect(failing.status == 502 && failing.code == "appstore_api_failed" && failing.text.contains("503"))

        harness.addCustomer(user: "forged", firstId: 7_300_000, key: try P256PrivateKey.generate())
        let forged = refresh(harness, #"{"transactionId": "7300000"}"#)
        #expect(forged.status == 502 && forged.text.contains("signedTransactions[0]"))
        #expect(try harness.count("SELECT COUNT(*) FROM transactions") == 0)

        harness.store.inject([.rateLimited(after: .seconds(30))], into: "history")
        let limited = refresh(harness, #"{"transactionId": "7200001"}"#)
        #expect(limited.status == 503 && Int(limited.response.headers["Retry-After"] ?? "") ?? 0 >= 25)
    }

    @Test("without App Store Server API clients the endpoint says so with 503")
    func notConfigured() throws {
        let env = try TestEnvironment()
        let response = env.send("POST", "/v1/admin/history/refresh", role: .admin, json: #"{"transactionId": "1"}"#)
        #expect(response.status == 503 && response.text.contains("not configured"))
    }
}
