import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// `POST /v1/offers/introductory-eligibility` and the introductory-offer rules behind it.
@Suite("POST /v1/offers/introductory-eligibility")
struct IntroductoryEligibilityTests {
    static let user = "7c1d0a52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"

    func ask(_ env: TestEnvironment, user: String = user, product: String = TestEnvironment.product, fields: String = "") -> TestResponse {
        let more = fields.isEmpty ? "" : ", " + fields
        return env.send("POST", "/v1/offers/introductory-eligibility",
                        json: #"{"productId": "\#(product)", "userId": "\#(user)", "transactionId": "2000000777"\#(more)}"#)
    }

    /// A user who had a free trial, then three paid months that ended `endedDaysAgo` days ago.
    func hadTrial(_ flow: AppStoreFlow, endedDaysAgo: Double = 30, storefront: String = "USA") {
        let start = -(endedDaysAgo + 97)
        flow.notify(flow.period("trial", original: "s1", user: Self.user, from: start, to: start + 7, reason: "PURCHASE",
                                offerType: 1, discount: "FREE_TRIAL", price: 0, extra: ["storefront": storefront]))
        for month in 0..<3 {
            let from = start + 7 + Double(30 * month)
            flow.notify(flow.period("paid\(month)", original: "s1", user: Self.user, from: from, to: from + 30, extra: ["storefront": storefront]))
        }
    }

    func putRule(_ env: TestEnvironment, _ rule: IntroductoryOfferRule) throws {
        _ = try env.rules.put(rule, by: "test", at: env.now)
    }

    func verify(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let key = try P256PublicKey(spkiDER: Array(Data(base64Encoded: SignEndpointTests.applePublicKey)!))
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(key.isValidSignature(rawSignature: Array(signature), of: Array("\(parts[0]).\(parts[1])".utf8)))
        let headerData = try #require(Base64URL.decode(parts[0]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ACTIVEKEY1", "typ": "JWT"] as NSDictionary)
        let payload = try #require(Base64URL.decode(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }

    @Test("a new user gets it: the answer's fields, a JWS with exactly Apple's claims and no exp, verified, logged")
    func newUser() throws {
        let env = try TestEnvironment()
        let response = ask(env, user: "New-User")
        #expect(response.status == 200, "\(response.text)")
        #expect(Set(response.json.keys) == ["allowIntroductoryOffer", "jws", "nonce", "keyIdentifier", "reasons"])
        #expect(response.json["allowIntroductoryOffer"] as? Bool == true)
        #expect((response.json["reasons"] as? [Any])?.isEmpty == true)
        #expect(response.json["keyIdentifier"] as? String == "ACTIVEKEY1")
        let jws = try #require(response.json["jws"] as? String)
        let claims = try verify(jws)
        #expect(Set(claims.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"])
        #expect(claims["exp"] == nil)
        #expect(claims["aud"] as? String == "introductory-offer-eligibility" && claims["iss"] as? String == "issuer-1")
        #expect(claims["bid"] as? String == TestEnvironment.bundleId && claims["productId"] as? String == TestEnvironment.product)
        #expect(claims["transactionId"] as? String == "2000000777" && claims["allowIntroductoryOffer"] as? Bool == true)
        #expect(claims["nonce"] as? String == response.json["nonce"] as? String)
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_800_000_000)

        let nonce = try #require(response.json["nonce"] as? String)
        let logged = try #require(try env.signatureLog.signature(nonce: nonce)).record
        #expect(logged.format == .introductoryOfferEligibility && logged.source == .api && logged.allowIntroductoryOffer == true)
        #expect(logged.signature == jws && logged.userId == "new-user" && logged.offerId == "" && logged.transactionId == "2000000777")
        #expect(logged.apiKeyName == "client-key")
        #expect(try env.signatureLog.verifyIntegrity().ok)
    }

    @Test("without a rule, a user who had an introductory offer in the group is refused, signed false, with the reason")
    func appleDefault() throws {
        let env = try TestEnvironment()
        hadTrial(AppStoreFlow(env: env))
        let response = ask(env)
        #expect(response.status == 200)
        #expect(response.json["allowIntroductoryOffer"] as? Bool == false)
        #expect(AppStoreFlow.failed(response) == ["introductoryOfferRedeemed"])
        #expect(try verify(try #require(response.json["jws"] as? String))["allowIntroductoryOffer"] as? Bool == false)
        let logged = try env.signatureLog.signatures(matching: SignatureFilter(format: .introductoryOfferEligibility), afterSequence: 0, limit: 5)
        #expect(logged.map(\.record.allowIntroductoryOffer) == [false])
    }

    @Test("a rule's allowAgain grants it again after N days lapsed with M paid days; the reasons say what is missing")
    func allowAgain() throws {
        let env = try TestEnvironment()
        hadTrial(AppStoreFlow(env: env), endedDaysAgo: 30)
        try putRule(env, IntroductoryOfferRule(ruleId: "trial-again", bundleId: TestEnvironment.bundleId, subscriptionGroupIds: ["group-1"],
                                               allowAgain: EligibilityCriteria(requireLapsed: true, minPaidDays: 60, minDaysSinceExpiry: 180)))
        let tooSoon = ask(env)
        #expect(tooSoon.json["allowIntroductoryOffer"] as? Bool == false)
        #expect(AppStoreFlow.failed(tooSoon) == ["introductoryOfferRedeemed", "allowAgain.minDaysSinceExpiry"])
        #expect(AppStoreFlow.reason("allowAgain.minDaysSinceExpiry", in: tooSoon)?["actual"] as? Int == 30)

        let later = try TestEnvironment()
        hadTrial(AppStoreFlow(env: later), endedDaysAgo: 200)
        try putRule(later, IntroductoryOfferRule(ruleId: "trial-again", bundleId: TestEnvironment.bundleId, productIds: [TestEnvironment.product],
                                                 allowAgain: EligibilityCriteria(requireLapsed: true, minPaidDays: 60, minDaysSinceExpiry: 180)))
        let granted = ask(later)
        #expect(granted.json["allowIntroductoryOffer"] as? Bool == true && AppStoreFlow.failed(granted).isEmpty)
    }

    @Test("a rule's excludeRefunded and storefronts withhold it even from a new subscriber; a disabled rule does nothing")
    func denials() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        flow.notify(TestAppStore.transaction(id: "r1", user: "refunded", purchased: flow.at(-40), expires: flow.at(-10),
                                             revoked: flow.at(-35), signed: flow.at(-30), extra: ["revocationType": "REFUND_FULL"]))
        flow.notify(flow.period("f1", original: "f1", user: "french", from: -40, to: -10, reason: "PURCHASE", extra: ["storefront": "FRA"]))
        var rule = IntroductoryOfferRule(ruleId: "careful", bundleId: TestEnvironment.bundleId, productIds: [TestEnvironment.product],
                                         excludeRefunded: true, storefronts: ["USA"])
        try putRule(env, rule)
        #expect(AppStoreFlow.failed(ask(env, user: "refunded")) == ["excludeRefunded"])
        let french = ask(env, user: "french")
        #expect(AppStoreFlow.failed(french) == ["storefronts"] && french.json["allowIntroductoryOffer"] as? Bool == false)
        #expect(AppStoreFlow.failed(ask(env, user: "nobody")) == ["storefronts"], "no storefront is known for a new user")
        rule.enabled = false
        try putRule(env, rule)
        #expect(ask(env, user: "french").json["allowIntroductoryOffer"] as? Bool == true)
    }

    @Test("refusals: bad input, an unknown app, an unaccepted environment, an app without issuer ID; nothing is logged")
    func refusals() throws {
        let env = try TestEnvironment(environments: ["Production"])
        for (body, status) in [
            (#"{"productId": "p", "userId": "u"}"#, 400),
            (#"{"productId": "p", "userId": "u", "transactionId": ""}"#, 400),
            (#"{"productId": "p", "userId": "u", "transactionId": "1", "extra": 1}"#, 400),
            (#"{"productId": "p", "userId": "a\#u{2063}b", "transactionId": "1"}"#, 400),
            (#"{"productId": "p", "userId": "u", "transactionId": "1", "environment": "Sandbox"}"#, 400),
            (#"{"productId": "p", "userId": "u", "transactionId": "1", "bundleId": "com.unknown"}"#, 404),
        ] {
            let response = env.send("POST", "/v1/offers/introductory-eligibility", json: body)
            #expect(response.status == status, "\(body): \(response.text)")
            #expect(response.json["jws"] == nil)
        }
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("audit: the JWS verifies as issued here, CSV and JSON show the format, source and grant, the chain holds")
    func audit() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        #expect(AppStoreFlow(env: env).sign("someone").status == 200)
        let response = ask(env)
        let jws = try #require(response.json["jws"] as? String)

        let verified = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json(["jws": jws]))
        #expect(verified.status == 200, "\(verified.text)")
        #expect(verified.json["validSignature"] as? Bool == true && verified.json["issuedHere"] as? Bool == true)
        let record = try #require(verified.json["record"] as? [String: Any])
        #expect(record["format"] as? String == "introductory-offer-eligibility" && record["allowIntroductoryOffer"] as? Bool == true)
        #expect(record["source"] as? String == "api")

        var parts = jws.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self)
            .replacingOccurrences(of: "\"allowIntroductoryOffer\":true", with: "\"allowIntroductoryOffer\":false").utf8))
        let forged = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json(["jws": parts.joined(separator: ".")]))
        #expect(forged.json["validSignature"] as? Bool == false && forged.json["issuedHere"] as? Bool == false)
        let garbage = env.send("POST", "/v1/audit/verify", role: .auditor, json: #"{"jws": "a.b.c"}"#)
        #expect(garbage.status == 200 && garbage.json["validSignature"] as? Bool == false)
        let both = env.send("POST", "/v1/audit/verify", role: .auditor, json: TestAppStore.json(["jws": jws, "nonce": "x"]))
        #expect(both.status == 400 && both.code == "invalid_request")

        let csv = env.send("GET", "/v1/audit/signatures", role: .auditor, headers: ["Accept": "text/csv"]).text
        let lines = csv.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasSuffix(",source,allowIntroductoryOffer") == true)
        #expect(lines.count == 3 && lines[1].hasSuffix(",api,") && lines[2].hasSuffix(",api,true"))
        #expect(lines[2].contains(",introductory-offer-eligibility,"))
        let filtered = env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["format": "introductory-offer-eligibility"])
        #expect((filtered.json["items"] as? [[String: Any]])?.count == 1)
        #expect(env.send("GET", "/v1/audit/signatures", role: .auditor, query: ["source": "nobody"]).status == 400)
        #expect(env.send("GET", "/v1/audit/integrity", role: .auditor).json["ok"] as? Bool == true)
    }

    /// An introductory-eligibility request with the app key (`"proof": "required"`).
    func askAsApp(_ env: TestEnvironment, user: String, transactionId: String = "2000000777", signedTransaction: String? = nil,
                  signedAppTransaction: String? = nil) -> TestResponse {
        var body: [String: Any] = ["productId": TestEnvironment.product, "userId": user, "transactionId": transactionId]
        body["signedTransaction"] = signedTransaction
        body["signedAppTransaction"] = signedAppTransaction
        return env.send("POST", "/v1/offers/introductory-eligibility", role: nil, json: TestAppStore.json(body),
                        headers: ["Authorization": "Bearer \(TestEnvironment.appToken)"])
    }

    @Test("a key shipped in apps must prove the customer as for signing; the proof binds the user and the transaction")
    func proof() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        let bare = askAsApp(env, user: Self.user)
        #expect(bare.status == 403 && bare.code == "proof_required", "\(bare.text)")

        // The customer's own transaction (a trial, then lapsed): proven, and Apple's default then says no.
        let own = flow.period("t1", original: "t0", user: Self.user, from: -100, to: -93, reason: "PURCHASE", offerType: 1,
                              discount: "FREE_TRIAL", price: 0)
        let proven = askAsApp(env, user: Self.user, transactionId: "t0", signedTransaction: own)
        #expect(proven.status == 200, "\(proven.text)")
        #expect(proven.json["allowIntroductoryOffer"] as? Bool == false && AppStoreFlow.failed(proven) == ["introductoryOfferRedeemed"])
        #expect(try env.historyStore.history(userId: Self.user, bundleId: TestEnvironment.bundleId).transactions.map(\.transactionId) == ["t1"],
                "the proven transaction is stored like any verified one")

        // Someone else's user ID, or another transaction ID, with that proof: refused.
        let otherUser = askAsApp(env, user: "someone-else", transactionId: "t0", signedTransaction: own)
        #expect(otherUser.status == 403 && otherUser.code == "proof_mismatch", "\(otherUser.text)")
        let otherTransaction = askAsApp(env, user: Self.user, transactionId: "999", signedTransaction: own)
        #expect(otherTransaction.status == 403 && otherTransaction.code == "proof_mismatch")
        // A forged chain is refused as invalid signed data.
        let forged = askAsApp(env, user: Self.user, transactionId: "t0", signedTransaction: TestAppStore.forged(own))
        #expect(forged.status == 400 && forged.code == "invalid_signed_data")
        #expect(try env.signatureLog.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).count == 1)
    }
}
