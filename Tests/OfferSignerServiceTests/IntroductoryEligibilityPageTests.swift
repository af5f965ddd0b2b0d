import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
import OfferSignerStore
import Synchronization
import Testing

/// `POST /v1/offers/introductory-eligibility` with `productIds`: a whole store page at once.
@Suite("POST /v1/offers/introductory-eligibility: a store page (productIds)")
struct IntroductoryEligibilityPageTests {
    static let user = IntroductoryEligibilityTests.user
    static let yearly = "com.example.app.pro_yearly"
    static let family = "com.example.app.family_monthly"

    func ask(_ env: TestEnvironment, _ products: [String], fields: String = "") -> TestResponse {
        let list = products.map { "\"\($0)\"" }.joined(separator: ", ")
        let more = fields.isEmpty ? "" : ", " + fields
        return env.send("POST", "/v1/offers/introductory-eligibility",
                        json: #"{"productIds": [\#(list)], "userId": "\#(Self.user)", "transactionId": "2000000777"\#(more)}"#)
    }

    /// An env where the user had a trial of the monthly product (its group's history), and the
    /// yearly and family products are known only through rules.
    func pageEnvironment() throws -> TestEnvironment {
        let env = try TestEnvironment()
        IntroductoryEligibilityTests().hadTrial(AppStoreFlow(env: env))
        _ = try env.rules.put(IntroductoryOfferRule(ruleId: "yearly", bundleId: TestEnvironment.bundleId, productIds: [Self.yearly]),
                              by: "test", at: env.now)
        _ = try env.putOffer(OfferRule(offerId: "family-winback", bundleId: TestEnvironment.bundleId, productIds: [Self.family]))
        return env
    }

    @Test("one answer per product in request order, each with exactly the single answer's fields, each JWS verified")
    func page() throws {
        let env = try pageEnvironment()
        let products = [Self.yearly, TestEnvironment.product, Self.family]
        let response = ask(env, products)
        #expect(response.status == 200, "\(response.text)")
        #expect(Set(response.json.keys) == ["items"])
        let items = try #require(response.json["items"] as? [[String: Any]])
        #expect(items.count == 3)
        let single = IntroductoryEligibilityTests().ask(env)
        #expect(single.status == 200)
        var nonces: [String] = []
        for (item, product) in zip(items, products) {
            #expect(Set(item.keys) == Set(single.json.keys), "every item has the single answer's fields")
            let jws = try #require(item["jws"] as? String)
            let claims = try IntroductoryEligibilityTests().verify(jws)
            #expect(Set(claims.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"])
            #expect(claims["productId"] as? String == product, "request order")
            #expect(claims["aud"] as? String == "introductory-offer-eligibility" && claims["transactionId"] as? String == "2000000777")
            #expect(claims["nonce"] as? String == item["nonce"] as? String)
            #expect(claims["allowIntroductoryOffer"] as? Bool == item["allowIntroductoryOffer"] as? Bool)
            nonces.append(try #require(item["nonce"] as? String))
        }
        #expect(items[0]["allowIntroductoryOffer"] as? Bool == true && items[2]["allowIntroductoryOffer"] as? Bool == true)
        #expect(items[1]["allowIntroductoryOffer"] as? Bool == false, "the monthly product's group had a trial")
        #expect((items[1]["reasons"] as? [[String: Any]])?.compactMap { $0["criterion"] as? String } == ["introductoryOfferRedeemed"])
        #expect(Set(nonces).count == 3)

        // Every record is in the log, one after another, with the page's request ID; the chain holds.
        let logged = try env.signatureLog.signatures(matching: SignatureFilter(format: .introductoryOfferEligibility), afterSequence: 0, limit: 10)
        let page = logged.filter { nonces.contains($0.record.nonce) }
        #expect(page.map(\.record.productId) == products)
        #expect(page.map(\.sequence) == Array(page[0].sequence...(page[0].sequence + 2)))
        #expect(Set(page.map(\.record.requestId)).count == 1)
        #expect(page.allSatisfy { $0.record.userId == Self.user && $0.record.apiKeyName == "client-key" })
        #expect(try env.signatureLog.verifyIntegrity().ok)
        let verified = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json(["jws": items[2]["jws"] as! String]))
        #expect(verified.json["validSignature"] as? Bool == true && verified.json["issuedHere"] as? Bool == true)
    }

    @Test("an unknown product fails the whole page with 404 naming it; nothing is signed or logged")
    func unknownProduct() throws {
        let env = try pageEnvironment()
        let response = ask(env, [Self.yearly, "com.example.app.nobody_sells_this", TestEnvironment.product])
        #expect(response.status == 404 && response.code == "not_found", "\(response.text)")
        #expect(response.json["detail"] as? String ?? "" == "product 'com.example.app.nobody_sells_this' is not known for com.example.app: no verified transaction of the environment and no rule names it")
        #expect(response.json["items"] == nil)
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("refusals: both productId and productIds, none, an empty or 21-product list, a duplicate, a bad ID")
    func refusals() throws {
        let env = try pageEnvironment()
        let twenty = (1...21).map { "p\($0)" }.map { "\"\($0)\"" }.joined(separator: ",")
        for (body, detail) in [
            (#"{"productId": "a", "productIds": ["b"], "userId": "u", "transactionId": "1"}"#, "exclude each other"),
            (#"{"userId": "u", "transactionId": "1"}"#, "name the product"),
            (#"{"productIds": [], "userId": "u", "transactionId": "1"}"#, "1–20"),
            (#"{"productIds": [\#(twenty)], "userId": "u", "transactionId": "1"}"#, "got 21"),
            (#"{"productIds": ["a", "b", "a"], "userId": "u", "transactionId": "1"}"#, "names 'a' twice"),
            (#"{"productIds": ["a", ""], "userId": "u", "transactionId": "1"}"#, "productIds[1]"),
            (#"{"productIds": "a", "userId": "u", "transactionId": "1"}"#, "productIds"),
        ] {
            let response = env.send("POST", "/v1/offers/introductory-eligibility", json: body)
            #expect(response.status == 400 && response.code == "invalid_request", "\(body): \(response.text)")
            #expect((response.json["detail"] as? String ?? "").contains(detail), "\(body): \(response.text)")
        }
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("20 products in one page; the history is read once and one per-user request is taken, one per product of the key's")
    func limits() throws {
        let env = try pageEnvironment()
        let products = (1...20).map { "com.example.app.tier_\($0)" }
        _ = try env.rules.put(IntroductoryOfferRule(ruleId: "tiers", bundleId: TestEnvironment.bundleId, productIds: products),
                              by: "test", at: env.now)
        env.rateLimits = RateLimits(signPerAPIKey: RateLimit(count: 26, period: 3600), signPerUser: RateLimit(count: 2, period: 3600))
        let composition = env.composition
        func send(_ list: [String]) -> TestResponse {
            let body = TestAppStore.json(["productIds": list, "userId": Self.user, "transactionId": "2000000777"])
            var headers: HTTPHeaders = [:]
            headers.set("Authorization", "Bearer \(TestEnvironment.tokens[.client]!)")
            headers.set("Content-Type", "application/json")
            return TestResponse(response: composition.router.respond(to: HTTPRequest(method: "POST", path: "/v1/offers/introductory-eligibility",
                                                                                     query: [:], headers: headers, body: Array(body.utf8))))
        }
        let full = send(products)
        #expect(full.status == 200 && (full.json["items"] as? [Any])?.count == 20, "\(full.text)")
        let overKey = send(Array(products.prefix(10)))
        #expect(overKey.status == 429, "20 of the key's 26 are spent: 10 more products are refused")
        let fits = send(Array(products.prefix(5)))
        #expect(fits.status == 200, "5 products fit the key's 6 left, and the user's second request: \(fits.text)")
        let overUser = send([Self.yearly])
        #expect(overUser.status == 429, "the user's 2 requests are spent")
    }

    @Test("the customer's history is read once for the whole page, not once per product")
    func historyReadOnce() throws {
        let env = try pageEnvironment()
        let counting = CountingHistoryStore(env.history)
        env.history = counting
        let response = ask(env, [Self.yearly, TestEnvironment.product, Self.family])
        #expect(response.status == 200, "\(response.text)")
        #expect(counting.userReads == 1, "one read of the user's history for three products")
        _ = IntroductoryEligibilityTests().ask(env)
        #expect(counting.userReads == 2)
    }

    @Test("a log that cannot be written: 503 and no JWS for any product")
    func logUnavailable() throws {
        let env = try TestEnvironment(signatures: FailingSignatureLog())
        _ = try env.rules.put(IntroductoryOfferRule(ruleId: "yearly", bundleId: TestEnvironment.bundleId,
                                                    productIds: [Self.yearly, TestEnvironment.product]), by: "test", at: env.now)
        let response = ask(env, [Self.yearly, TestEnvironment.product])
        #expect(response.status == 503 && response.json["items"] == nil, "\(response.text)")
    }
}

/// A history store that counts the reads of a user's history.
final class CountingHistoryStore: SubscriptionHistoryStore, Sendable {
    let inner: any SubscriptionHistoryStore
    private let reads = Mutex(0)

    init(_ inner: any SubscriptionHistoryStore) { self.inner = inner }

    var userReads: Int { reads.withLock { $0 } }

    func record(_ item: HistoryItem) throws -> Bool { try inner.record(item) }
    func record(batch items: [HistoryItem]) throws -> [Bool] { try inner.record(batch: items) }
    func history(userId: String, bundleId: String) throws -> UserHistory {
        reads.withLock { $0 += 1 }
        return try inner.history(userId: userId, bundleId: bundleId)
    }
    func history(originalTransactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try inner.history(originalTransactionId: originalTransactionId, environment: environment, bundleId: bundleId)
    }
    func history(transactionId: String, environment: AppStoreEnvironment, bundleId: String) throws -> UserHistory {
        try inner.history(transactionId: transactionId, environment: environment, bundleId: bundleId)
    }
    func subscriptionGroup(productId: String, bundleId: String, environment: AppStoreEnvironment) throws -> String? {
        try inner.subscriptionGroup(productId: productId, bundleId: bundleId, environment: environment)
    }
    func knownUsers(bundleId: String, environment: AppStoreEnvironment, afterUserId: String, limit: Int) throws -> [String] {
        try inner.knownUsers(bundleId: bundleId, environment: environment, afterUserId: afterUserId, limit: limit)
    }
}
