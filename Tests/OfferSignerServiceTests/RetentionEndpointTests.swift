import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
import OfferSignerStore
import Synchronization
import Testing

/// `POST /v1/retention/appstore` driven as the App Store drives it: signed real-time requests
/// for a subscription whose history arrived through notifications.
@Suite("POST /v1/retention/appstore")
struct RetentionEndpointTests {
    static let offerMessage = "11111111-1111-4111-8111-111111111111"
    static let fallbackMessage = "22222222-2222-4222-8222-222222222222"
    static let plainMessage = "33333333-3333-4333-8333-333333333333"
    static let user = "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"

    /// An environment with a lapsed subscriber (subscription `sub1`, three paid months that
    /// ended 60 days ago) and the offer `winback` for lapsed users.
    func lapsedSubscriber(environments: Set<String> = ["Production", "Sandbox"], secondApp: Bool = false,
                          limits: OfferLimits = OfferLimits()) throws -> (TestEnvironment, AppStoreFlow) {
        let env = try TestEnvironment(secondApp: secondApp, environments: environments)
        let flow = AppStoreFlow(env: env)
        for month in 0..<3 {
            let start = -150.0 + Double(30 * month)
            flow.notify(flow.period("sub1-\(month)", original: "sub1", user: Self.user, from: start, to: start + 30,
                                    reason: month == 0 ? "PURCHASE" : "RENEWAL"))
        }
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 60), limits: limits))
        return (env, flow)
    }

    func put(_ env: TestEnvironment, _ rule: RetentionRule) throws {
        _ = try env.rules.put(rule, by: "test", at: env.now)
    }

    func offerRule(_ id: String = "save", priority: Int = 10, offerId: String = "winback", fallback: String? = fallbackMessage) -> RetentionRule {
        RetentionRule(ruleId: id, bundleId: TestEnvironment.bundleId, priority: priority, messageIdentifier: Self.offerMessage,
                      offerId: offerId, fallbackMessageIdentifier: fallback)
    }

    func ask(_ env: TestEnvironment, original: String = "sub1", requestIdentifier: String = UUID().uuidString,
             locale: String = "en-US", product: String = TestEnvironment.product, appAppleId: Int64 = 1234,
             environment: String = "Production") -> TestResponse {
        let payload = TestAppStore.realtimeRequest(original: original, product: product, locale: locale, requestIdentifier: requestIdentifier,
                                                   appAppleId: appAppleId, environment: environment, signed: env.now - 1)
        return send(env, payload)
    }

    func send(_ env: TestEnvironment, _ signedPayload: String) -> TestResponse {
        env.send("POST", "/v1/retention/appstore", role: nil, json: TestAppStore.json(["signedPayload": signedPayload]))
    }

    func claims(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let data = try #require(Base64URL.decode(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("an eligible subscriber gets the promotional offer: a V2 JWS bound to the originalTransactionId, verified with the app's key, logged with source retention")
    func promotionalOffer() throws {
        let (env, _) = try lapsedSubscriber()
        try put(env, offerRule())
        let identifier = "3DB5C98D-8ACF-4E29-831E-8E1F82F9F6E9"
        let response = ask(env, requestIdentifier: identifier)
        #expect(response.status == 200, "\(response.text)")
        #expect(Set(response.json.keys) == ["promotionalOffer"])
        let offer = try #require(response.json["promotionalOffer"] as? [String: Any])
        #expect(Set(offer.keys) == ["messageIdentifier", "promotionalOfferSignatureV2"])
        #expect(offer["messageIdentifier"] as? String == Self.offerMessage)
        let jws = try #require(offer["promotionalOfferSignatureV2"] as? String)

        let parts = jws.split(separator: ".").map(String.init)
        let header = try JSONSerialization.jsonObject(with: Base64URL.decode(parts[0])!) as! [String: Any]
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ACTIVEKEY1", "typ": "JWT"] as NSDictionary)
        let claims = try claims(jws)
        #expect(claims["transactionId"] as? String == "sub1", "Apple requires the originalTransactionId")
        #expect(claims["aud"] as? String == "promotional-offer" && claims["offerIdentifier"] as? String == "winback")
        #expect(claims["productId"] as? String == TestEnvironment.product && claims["bid"] as? String == TestEnvironment.bundleId)
        #expect(claims["iss"] as? String == "issuer-1" && claims["exp"] == nil)
        let key = try P256PublicKey(spkiDER: Array(Data(base64Encoded: SignEndpointTests.applePublicKey)!))
        #expect(key.isValidSignature(rawSignature: Array(Base64URL.decode(parts[2])!), of: Array("\(parts[0]).\(parts[1])".utf8)))

        let nonce = try #require(claims["nonce"] as? String)
        let logged = try #require(try env.signatureLog.signature(nonce: nonce)).record
        #expect(logged.source == .retention && logged.format == .jws && logged.signature == jws)
        #expect(logged.transactionId == "sub1" && logged.userId == Self.user && logged.offerId == "winback")
        #expect(logged.requestId == identifier.lowercased() && logged.apiKeyName == "app-store")
        #expect(try env.signatureLog.verifyIntegrity().ok)

        let recorded = try #require(try env.retentionRequestStore.answered(bundleId: TestEnvironment.bundleId, environment: .production, requestIdentifier: identifier.lowercased()))
        #expect(recorded.answer == .promotionalOffer && recorded.ruleId == "save" && recorded.signatureNonce == nonce)
        #expect(recorded.responseJSON == response.text && recorded.userId == Self.user && recorded.originalTransactionId == "sub1")
    }

    @Test("a message rule and an alternate-product rule answer with their message")
    func messageAndAlternateProduct() throws {
        let (env, _) = try lapsedSubscriber()
        try put(env, RetentionRule(ruleId: "text", bundleId: TestEnvironment.bundleId, messageIdentifier: Self.plainMessage))
        let message = ask(env)
        #expect(message.status == 200)
        #expect(message.json as NSDictionary == ["message": ["messageIdentifier": Self.plainMessage]] as NSDictionary)

        try put(env, RetentionRule(ruleId: "switch", bundleId: TestEnvironment.bundleId, priority: 5, messageIdentifier: Self.plainMessage,
                                   alternateProductId: "com.example.app.pro_yearly"))
        let alternate = ask(env)
        #expect(alternate.json as NSDictionary
                == ["alternateProduct": ["messageIdentifier": Self.plainMessage, "productId": "com.example.app.pro_yearly"]] as NSDictionary)
        #expect(try env.signatureLog.verifyIntegrity().records == 0, "messages sign nothing")
    }

    @Test("without a rule that answers, an empty body: the App Store shows its default message")
    func noRule() throws {
        let (env, _) = try lapsedSubscriber()
        try put(env, RetentionRule(ruleId: "french", bundleId: TestEnvironment.bundleId, locales: ["fr"], messageIdentifier: Self.plainMessage))
        try put(env, RetentionRule(ruleId: "other-product", bundleId: TestEnvironment.bundleId, productIds: ["com.example.app.other"],
                                   messageIdentifier: Self.plainMessage))
        var off = RetentionRule(ruleId: "off", bundleId: TestEnvironment.bundleId, messageIdentifier: Self.plainMessage)
        off.enabled = false
        try put(env, off)
        let response = ask(env)
        #expect(response.status == 200 && response.text == "{}")
        #expect(ask(env, locale: "fr-CA").json["message"] != nil, "the French rule applies to fr-CA")
    }

    @Test("an ineligible subscriber gets the rule's fallback message; without one the next rule answers")
    func ineligible() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        // An active subscriber: not lapsed.
        flow.notify(flow.period("a0", original: "active", user: "u-active", from: -10, to: 20, reason: "PURCHASE"))
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true)))
        try put(env, offerRule())
        let fallback = ask(env, original: "active")
        #expect(fallback.json as NSDictionary == ["message": ["messageIdentifier": Self.fallbackMessage]] as NSDictionary)

        try put(env, offerRule(fallback: nil))
        try put(env, RetentionRule(ruleId: "later", bundleId: TestEnvironment.bundleId, priority: 1, messageIdentifier: Self.plainMessage))
        let next = ask(env, original: "active")
        #expect(next.json as NSDictionary == ["message": ["messageIdentifier": Self.plainMessage]] as NSDictionary)
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("a subscription whose transactions carry no app account token is judged on its own history; an unknown one gets no offer")
    func tokenlessAndUnknown() throws {
        let (env, flow) = try lapsedSubscriber()
        for month in 0..<3 {
            let start = -150.0 + Double(30 * month)
            flow.notify(flow.period("anon-\(month)", original: "anon", user: nil, from: start, to: start + 30,
                                    reason: month == 0 ? "PURCHASE" : "RENEWAL"))
        }
        try put(env, offerRule())
        let tokenless = ask(env, original: "anon")
        let offer = try #require(tokenless.json["promotionalOffer"] as? [String: Any], "\(tokenless.text)")
        let claims = try claims(try #require(offer["promotionalOfferSignatureV2"] as? String))
        #expect(claims["transactionId"] as? String == "anon")
        let nonce = try #require(claims["nonce"] as? String)
        let logged = try #require(try env.signatureLog.signature(nonce: nonce)).record
        #expect(logged.userId == "" && logged.transactionId == "anon" && logged.source == .retention)

        let unknown = ask(env, original: "never-seen")
        #expect(unknown.json as NSDictionary == ["message": ["messageIdentifier": Self.fallbackMessage]] as NSDictionary)
        #expect(try env.signatureLog.verifyIntegrity().records == 1)
    }

    @Test("Apple repeating a request gets the same answer, never a second signature, even while the first is being answered")
    func idempotency() throws {
        let (env, _) = try lapsedSubscriber()
        try put(env, offerRule())
        let identifier = UUID().uuidString
        let first = ask(env, requestIdentifier: identifier)
        let again = ask(env, requestIdentifier: identifier.lowercased())
        #expect(first.status == 200 && again.status == 200)
        #expect(again.text == first.text)
        #expect(try env.signatureLog.verifyIntegrity().records == 1)

        let concurrentIdentifier = UUID().uuidString
        let payload = TestAppStore.realtimeRequest(original: "sub1", requestIdentifier: concurrentIdentifier, signed: env.now - 1)
        let bodies = Mutex<[String]>([])
        let router = env.router
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let request = HTTPRequestFactory.json("POST", "/v1/retention/appstore", TestAppStore.json(["signedPayload": payload]))
            let response = router.respond(to: request)
            bodies.withLock { $0.append(String(decoding: response.body, as: UTF8.self)) }
        }
        let answers = bodies.withLock { $0 }
        #expect(answers.count == 8 && Set(answers).count == 1)
        #expect(answers.first?.contains("promotionalOfferSignatureV2") == true)
        #expect(try env.signatureLog.verifyIntegrity().records == 2, "one signature for each of the two requests")
    }

    @Test("quotas are shared with /v1/offers/sign: whoever asks first uses the user's daily signature")
    func sharedQuota() throws {
        let (env, flow) = try lapsedSubscriber(limits: OfferLimits(maxSignaturesPerUserPerDay: 1))
        try put(env, offerRule())
        #expect(flow.sign(Self.user).status == 200)
        let retention = ask(env)
        #expect(retention.json as NSDictionary == ["message": ["messageIdentifier": Self.fallbackMessage]] as NSDictionary,
                "the quota is used up, so the fallback answers")

        let (other, otherFlow) = try lapsedSubscriber(limits: OfferLimits(maxSignaturesPerUserPerDay: 1))
        try put(other, offerRule())
        #expect(ask(other).json["promotionalOffer"] != nil)
        let sign = otherFlow.sign(Self.user)
        #expect(sign.status == 429 && sign.code == "rate_limited", "the retention offer counted")
    }

    @Test("a product the offer is not for gets the offer on the offer's own product (another tier)")
    func otherTier() throws {
        let (env, flow) = try lapsedSubscriber()
        flow.notify(flow.period("y0", original: "yearly", user: Self.user, from: -400, to: -35, reason: "PURCHASE",
                                product: "com.example.app.pro_yearly"))
        try put(env, offerRule())
        let response = ask(env, original: "yearly", product: "com.example.app.pro_yearly")
        let offer = try #require(response.json["promotionalOffer"] as? [String: Any], "\(response.text)")
        let claims = try claims(try #require(offer["promotionalOfferSignatureV2"] as? String))
        #expect(claims["productId"] as? String == TestEnvironment.product && claims["transactionId"] as? String == "yearly")
    }

    @Test("the request is verified like a notification: forged chain, tampering, another app, unaccepted environment", arguments: [
        "forgedChain", "tampered", "otherApp", "unacceptedEnvironment", "notUUID", "notJWS",
    ])
    func refusals(kind: String) throws {
        let (env, _) = try lapsedSubscriber(environments: ["Production"])
        try put(env, offerRule())
        let payload = TestAppStore.realtimePayload(original: "sub1", signed: env.now - 1)
        let signed: String
        switch kind {
        case "forgedChain":
            signed = TestAppStore.forged(TestAppStore.sign(payload))
        case "tampered":
            var parts = TestAppStore.sign(payload).split(separator: ".").map(String.init)
            var changed = payload
            changed["originalTransactionId"] = "someone-else"
            parts[1] = Base64URL.encode(TestAppStore.json(changed).utf8)
            signed = parts.joined(separator: ".")
        case "otherApp":
            signed = TestAppStore.realtimeRequest(original: "sub1", appAppleId: 999, signed: env.now - 1)
        case "unacceptedEnvironment":
            signed = TestAppStore.realtimeRequest(original: "sub1", environment: "Sandbox", signed: env.now - 1)
        case "notUUID":
            signed = TestAppStore.realtimeRequest(original: "sub1", requestIdentifier: "again", signed: env.now - 1)
        default:
            signed = "not-a-jws"
        }
        let response = send(env, signed)
        #expect(response.status == 400 && response.code == "invalid_signed_data", "\(response.text)")
        #expect(response.json["promotionalOffer"] == nil)
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
        let detail = response.json["detail"] as? String ?? ""
        switch kind {
        case "forgedChain": #expect(detail.contains("trusted root"), "\(detail)")
        case "otherApp": #expect(detail.contains("appAppleId 999"), "\(detail)")
        case "unacceptedEnvironment": #expect(detail.contains("'Sandbox' is not accepted"), "\(detail)")
        default: break
        }
    }

    @Test("each app answers with its own rules, found by the request's appAppleId")
    func twoApps() throws {
        let (env, _) = try lapsedSubscriber(secondApp: true)
        try put(env, RetentionRule(ruleId: "a", bundleId: TestEnvironment.bundleId, messageIdentifier: Self.plainMessage))
        try put(env, RetentionRule(ruleId: "b", bundleId: TestEnvironment.otherBundleId, messageIdentifier: Self.fallbackMessage))
        #expect((ask(env, appAppleId: 1234).json["message"] as? [String: Any])?["messageIdentifier"] as? String == Self.plainMessage)
        #expect((ask(env, product: TestEnvironment.otherProduct, appAppleId: 5678).json["message"] as? [String: Any])?["messageIdentifier"]
                as? String == Self.fallbackMessage)
    }

    @Test("a request identifier is an app's and environment's: another app reusing it gets its own answer; another subscription reusing it is refused (409)")
    func identifierPerApp() throws {
        let (env, _) = try lapsedSubscriber(secondApp: true)
        try put(env, offerRule())
        try put(env, RetentionRule(ruleId: "b", bundleId: TestEnvironment.otherBundleId, messageIdentifier: Self.plainMessage))
        let identifier = "5E8B1E0A-3C1D-4F6A-9B2C-7D8E9F0A1B2C"
        let first = ask(env, requestIdentifier: identifier)
        #expect(first.json["promotionalOffer"] != nil, "\(first.text)")
        let otherApp = ask(env, requestIdentifier: identifier, product: TestEnvironment.otherProduct, appAppleId: 5678)
        #expect(otherApp.status == 200 && otherApp.json["promotionalOffer"] == nil, "app A's signed offer is never app B's answer")
        #expect((otherApp.json["message"] as? [String: Any])?["messageIdentifier"] as? String == Self.plainMessage)
        let otherSubscription = ask(env, original: "sub2", requestIdentifier: identifier)
        #expect(otherSubscription.status == 409 && otherSubscription.code == "request_identifier_reused", "\(otherSubscription.text)")
        #expect(ask(env, requestIdentifier: identifier).text == first.text, "the same request still gets its answer")
    }

    @Test("a request signed outside the window (older than 5 minutes, or over a minute ahead) is refused as stale, nothing signed")
    func staleOrFuture() throws {
        let (env, _) = try lapsedSubscriber()
        try put(env, offerRule())
        for signed in [env.now - 30 * 86_400, env.now - 301, env.now + 120] {
            let payload = TestAppStore.realtimeRequest(original: "sub1", requestIdentifier: UUID().uuidString, signed: signed)
            let response = send(env, payload)
            #expect(response.status == 400 && response.code == "stale_request", "\(signed): \(response.text)")
        }
        #expect(try env.signatureLog.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).isEmpty)
        let recent = TestAppStore.realtimeRequest(original: "sub1", requestIdentifier: UUID().uuidString, signed: env.now - 290)
        #expect(send(env, recent).json["promotionalOffer"] != nil)
    }

    @Test("answers older than the kept days are pruned in batches; newer ones stay and still answer their repeats")
    func pruning() throws {
        let (env, _) = try lapsedSubscriber()
        try put(env, RetentionRule(ruleId: "a", bundleId: TestEnvironment.bundleId, messageIdentifier: Self.plainMessage))
        for index in 0..<2_500 {
            _ = try env.retentionRequestStore.record(AnsweredRetentionRequest(
                requestIdentifier: "old-\(index)", bundleId: TestEnvironment.bundleId, environment: .production, originalTransactionId: "sub1",
                productId: TestEnvironment.product, userLocale: "en-US", userId: nil, ruleId: "a", answer: .message, signatureNonce: nil,
                responseJSON: "{}", signedDate: 0, answeredAt: env.now - 31 * 86_400))
        }
        let identifier = UUID().uuidString
        let kept = ask(env, requestIdentifier: identifier)
        let pruner = RetentionAnswerPruner(requests: env.retentionRequestStore, keepDays: 30, clock: env.clock, logger: .silent)
        #expect(pruner.pruneOnce() == 2_500)
        #expect(pruner.pruneOnce() == 0)
        #expect(try env.retentionRequestStore.answered(bundleId: TestEnvironment.bundleId, environment: .production,
                                                       requestIdentifier: identifier.lowercased()) != nil)
        #expect(ask(env, requestIdentifier: identifier).text == kept.text)
    }

    @Test("sandbox requests are answered from sandbox history only")
    func sandbox() throws {
        let (env, flow) = try lapsedSubscriber()
        try put(env, offerRule())
        let sandbox = ask(env, environment: "Sandbox")
        #expect(sandbox.json["message"] != nil, "the production subscription is unknown in the sandbox")
        for month in 0..<3 {
            let start = -150.0 + Double(30 * month)
            flow.notify(flow.period("sb-\(month)", original: "sub1", user: Self.user, from: start, to: start + 30,
                                    reason: month == 0 ? "PURCHASE" : "RENEWAL", environment: "Sandbox"), environment: "Sandbox")
        }
        #expect(ask(env, environment: "Sandbox").json["promotionalOffer"] != nil)
    }
}

/// Requests built outside `TestEnvironment.send`, for concurrent use.
enum HTTPRequestFactory {
    static func json(_ method: String, _ path: String, _ body: String) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }
}
