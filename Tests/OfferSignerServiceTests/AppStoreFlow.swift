import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
import Testing

/// Drives a `TestEnvironment` as the App Store and an app would: signed App Store data in
/// through the notification endpoint, signatures, verdicts and history out. Times are in
/// days relative to the environment's now (negative: in the past).
struct AppStoreFlow {
    static let day: TimeInterval = 86_400
    let env: TestEnvironment

    /// The instant `days` days from now.
    func at(_ days: Double) -> Date { env.now + days * Self.day }

    /// Posts a notification carrying `transaction` (and `renewal`), as Apple would, and
    /// expects it to be stored.
    func notify(_ transaction: String?, renewal: String? = nil, environment: String = "Production",
                bundleId: String = TestEnvironment.bundleId, appAppleId: Int64 = 1234,
                sourceLocation: SourceLocation = #_sourceLocation) {
        let response = env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(
            ["signedPayload": TestAppStore.notification(transaction: transaction, renewal: renewal, signed: at(-1),
                                                        appAppleId: appAppleId, environment: environment, bundleId: bundleId)]))
        #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
    }

    /// Imports signed items through `POST /v1/admin/history/import`, one NDJSON line each
    /// (`["signedTransactionInfo": jws]`, `["signedRenewalInfo": jws]`), and expects every one accepted.
    func importItems(_ items: [[String: String]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = env.folder.appendingPathComponent("import-\(UUID().uuidString).ndjson")
        try items.map { TestAppStore.json($0) }.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let request = HTTPRequest(method: "POST", path: "/v1/admin/history/import",
                                  headers: ["Authorization": "Bearer admin-token", "Content-Type": "application/x-ndjson"], bodyFile: file)
        let response = TestResponse(response: env.router.respond(to: request))
        #expect(response.status == 200 && response.json["accepted"] as? Int == items.count, "\(response.text)",
                sourceLocation: sourceLocation)
    }

    /// One signed subscription period from day `from` to day `to`, renewed unless `reason` says otherwise.
    func period(_ id: String, original: String, user: String?, from: Double, to: Double, reason: String = "RENEWAL",
                offerType: Int? = nil, offerId: String? = nil, discount: String? = nil, price: Int = 9990,
                environment: String = "Production", bundleId: String = TestEnvironment.bundleId,
                product: String = TestEnvironment.product, signed: Double = -1, extra: [String: Any] = [:]) -> String {
        TestAppStore.transaction(id: id, original: original, user: user, product: product, purchased: at(from), expires: at(to),
                                 offerType: offerType, offerId: offerId, discount: discount, price: price, signed: at(signed),
                                 environment: environment, reason: reason, bundleId: bundleId, extra: extra)
    }

    /// `count` paid 30-day periods of one subscription from day `from`, the first bought, the
    /// rest renewals, each posted; `extra` goes into every transaction.
    func paidMonths(_ prefix: String, user: String, from: Double, count: Int, environment: String = "Production",
                    extra: [String: Any] = [:]) {
        for month in 0..<count {
            let start = from + Double(30 * month)
            notify(period("\(prefix)\(month)", original: "\(prefix)0", user: user, from: start, to: start + 30,
                          reason: month == 0 ? "PURCHASE" : "RENEWAL", environment: environment, extra: extra),
                   environment: environment)
        }
    }

    /// Asks for a signature of `offerId`; `fields` are added to the body (`"environment": "Sandbox"`).
    func sign(_ user: String, offerId: String = "winback", product: String = TestEnvironment.product,
              fields: String = "") -> TestResponse {
        let more = fields.isEmpty ? "" : ", " + fields
        return env.send("POST", "/v1/offers/sign",
                        json: #"{"productId": "\#(product)", "offerId": "\#(offerId)", "userId": "\#(user)"\#(more)}"#)
    }

    /// The criteria a refusal names, in order.
    static func failed(_ response: TestResponse) -> [String] {
        (response.json["reasons"] as? [[String: Any]] ?? []).compactMap { $0["criterion"] as? String }
    }

    /// The reason for `criterion` in a refusal.
    static func reason(_ criterion: String, in response: TestResponse) -> [String: Any]? {
        (response.json["reasons"] as? [[String: Any]])?.first { $0["criterion"] as? String == criterion }
    }

    /// `GET /v1/users/{user}/history` as marketing sees it.
    func history(_ user: String, query: [String: String] = [:]) -> [String: Any] {
        env.send("GET", "/v1/users/\(user)/history", role: .marketing, query: query).json
    }

    /// The facts of the user's history in one environment (the first group of it).
    func facts(_ user: String, environment: String = "Production") -> [String: Any]? {
        (history(user)["groups"] as? [[String: Any]])?.first { $0["environment"] as? String == environment }
    }

    /// Stores the demo offer `winback` with `criteria`.
    func offer(_ criteria: EligibilityCriteria, offerId: String = "winback") throws {
        try env.putOffer(TestEnvironment.demoRule(offerId, eligibility: criteria))
    }
}
