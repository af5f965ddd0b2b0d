import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// Issue 11: a key shipped in apps signs only for a customer proven by the device's
/// Apple-signed transaction; the proof is verified like a notification, bound to the request,
/// stored, and decides whose history counts.
@Suite("Sign requests proven with the device's Apple-signed transaction")
struct ProofTests {
    /// The app account token as the device holds it (Apple's UUID, upper case).
    static let token = "6F0E3C52-2B8F-4F6A-9D7E-1F2A3B4C5D6E"

    /// A sign request for the demo offer, with the app key (`"proof": "required"`) unless `backend`.
    func sign(_ env: TestEnvironment, user: String, signedTransaction: String? = nil, signedAppTransaction: String? = nil,
              more: [String: Any] = [:], backend: Bool = false) -> TestResponse {
        var body: [String: Any] = ["productId": TestEnvironment.product, "offerId": "winback", "userId": user]
        body["signedTransaction"] = signedTransaction
        body["signedAppTransaction"] = signedAppTransaction
        body.merge(more) { $1 }
        return env.send("POST", "/v1/offers/sign", role: nil, json: TestAppStore.json(body),
                        headers: ["Authorization": "Bearer \(backend ? TestEnvironment.tokens[.client]! : TestEnvironment.appToken)"])
    }

    /// The customer's current period (the device's `Transaction.latest(for:)`), not yet known to the service.
    func latest(_ flow: AppStoreFlow, id: String = "p1", original: String = "p0", user: String? = token,
                environment: String = "Production", bundleId: String = TestEnvironment.bundleId,
                extra: [String: Any] = [:]) -> String {
        flow.period(id, original: original, user: user, from: -10, to: 20, environment: environment, bundleId: bundleId, extra: extra)
    }

    func stored(_ env: TestEnvironment, original: String = "p0") throws -> [SubscriptionTransaction] {
        try AppStoreEnvironment.allCases.flatMap {
            try env.historyStore.history(originalTransactionId: original, environment: $0, bundleId: TestEnvironment.bundleId).transactions
        }
    }

    func publicKey() throws -> P256PublicKey {
        try P256PublicKey(spkiDER: Array(Data(base64Encoded: SignEndpointTests.applePublicKey)!))
    }

    @Test("a transaction carrying the request's app account token signs, and is stored into the history")
    func proofVerifiedAndBound() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let response = sign(env, user: Self.token.lowercased(), signedTransaction: latest(flow))
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["appAccountToken"] as? String == Self.token.lowercased())
        let stored = try stored(env)
        #expect(stored.map(\.transactionId) == ["p1"] && stored.first?.appAccountToken == Self.token.lowercased())
        let history = try env.historyStore.history(userId: Self.token.lowercased(), bundleId: TestEnvironment.bundleId)
        #expect(history.transactions.map(\.transactionId) == ["p1"], "the device's transaction is history like any other")
        let logged = try #require(try env.signatureLog.signature(nonce: response.json["nonce"] as? String ?? ""))
        #expect(logged.record.apiKeyName == "client-app-key" && logged.record.transactionId == "p0")
    }

    @Test("a transaction carrying another app account token is refused proof_mismatch, and nothing is stored")
    func otherTokenRefused() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let response = sign(env, user: "11111111-2222-4333-8444-555555555555", signedTransaction: latest(flow))
        #expect(response.status == 403 && response.code == "proof_mismatch", "\(response.text)")
        #expect(!response.text.contains(Self.token) && !response.text.contains(Self.token.lowercased()),
                "the proof's token is not echoed")
        #expect(try stored(env).isEmpty)
        #expect(try env.signatureLog.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).isEmpty)
    }

    @Test("signed data that does not verify is refused invalid_signed_data, and nothing is stored", arguments: [
        "anotherApp", "anotherEnvironment", "forgedChain", "expiredCertificate", "tampered", "notASubscription",
    ])
    func invalidProofRefused(_ kind: String) throws {
        let env = try TestEnvironment(environments: ["Production"])
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let proof: String
        let detail: String
        switch kind {
        case "anotherApp":
            proof = latest(flow, bundleId: "com.example.stranger")
            detail = "bundleId 'com.example.stranger' is not a configured app"
        case "anotherEnvironment":
            proof = latest(flow, environment: "Sandbox")
            detail = "environment 'Sandbox' is not accepted"
        case "forgedChain":
            proof = TestAppStore.forged(latest(flow))
            detail = "x5c chain does not lead to a trusted root"
        case "expiredCertificate":
            // The test leaf expires on 2040-01-21; the App Store would have signed this after that.
            proof = TestAppStore.transaction(id: "p1", original: "p0", user: Self.token, purchased: flow.at(-10), expires: flow.at(20),
                                             signed: Date(timeIntervalSince1970: 2_211_000_000))
            detail = "leaf certificate had expired"
        case "tampered":
            let parts = latest(flow).split(separator: ".").map(String.init)
            let other = latest(flow, user: "11111111-2222-4333-8444-555555555555").split(separator: ".").map(String.init)
            proof = [parts[0], other[1], parts[2]].joined(separator: ".")
            detail = "JWS signature does not verify"
        default:
            proof = latest(flow, extra: ["type": "Consumable"])
            detail = "not an auto-renewable subscription transaction"
        }
        let response = sign(env, user: Self.token.lowercased(), signedTransaction: proof)
        #expect(response.status == 400 && response.code == "invalid_signed_data", "\(response.text)")
        let text = response.json["detail"] as? String ?? ""
        #expect(text.hasPrefix("signedTransaction: ") && text.contains(detail), "\(text)")
        #expect(try stored(env).isEmpty)
    }

    @Test("verified proof of another configured app or the other environment is refused proof_mismatch, nothing stored")
    func verifiedButForAnotherSource() throws {
        let env = try TestEnvironment(secondApp: true)
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        for (proof, detail) in [(latest(flow, bundleId: TestEnvironment.otherBundleId), "signedTransaction is for another app"),
                                (latest(flow, environment: "Sandbox"), "signedTransaction comes from the Sandbox environment")] {
            let response = sign(env, user: Self.token, signedTransaction: proof, more: ["bundleId": TestEnvironment.bundleId])
            #expect(response.status == 403 && response.code == "proof_mismatch", "\(response.text)")
            #expect((response.json["detail"] as? String)?.hasPrefix(detail) == true, "\(response.text)")
        }
        #expect(try stored(env).isEmpty)
        #expect(try env.historyStore.history(originalTransactionId: "p0", environment: .production,
                                             bundleId: TestEnvironment.otherBundleId).transactions.isEmpty)
    }

    @Test("a key shipped in apps is refused proof_required without a signed transaction; a backend key signs on its word")
    func proofRequiredOfAppKeysOnly() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let bare = sign(env, user: Self.token)
        #expect(bare.status == 403 && bare.code == "proof_required", "\(bare.text)")
        #expect((bare.json["detail"] as? String)?.contains("signedTransaction") == true)
        let appTransactionOnly = sign(env, user: Self.token, signedAppTransaction: TestAppStore.appTransaction(created: flow.at(-1)))
        #expect(appTransactionOnly.status == 403 && appTransactionOnly.code == "proof_required",
                "an app transaction says nothing of the subscription: \(appTransactionOnly.text)")
        #expect(try env.signatureLog.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).isEmpty)

        let backend = sign(env, user: Self.token, backend: true)
        #expect(backend.status == 200 && backend.json["appAccountToken"] as? String == Self.token.lowercased(), "\(backend.text)")
        let legacy = ["com.example.app", "ACTIVEKEY1", TestEnvironment.product, "winback", Self.token.lowercased(),
                      backend.json["nonce"] as? String ?? "", "1800000000000"].joined(separator: "\u{2063}")
        let signature = try #require(Data(base64Encoded: backend.json["signature"] as? String ?? ""))
        #expect(try publicKey().isValidSignature(derSignature: Array(signature), of: Array(legacy.utf8)))
    }

    @Test("a customer whose purchases carry no app account token is judged on the proven subscription's history, and no one else's")
    func customerWithoutTokenJudgedOnProvenSubscription() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria(requireLapsed: true, minPaidDays: 80))
        // Three paid months without a token, lapsed 40 days ago: the customer.
        for month in 0..<3 {
            flow.notify(flow.period("c\(month)", original: "c0", user: nil, from: Double(-130 + 30 * month), to: Double(-100 + 30 * month),
                                    reason: month == 0 ? "PURCHASE" : "RENEWAL"))
        }
        // Someone else's four tokenless months, and a third customer's single month.
        for month in 0..<4 {
            flow.notify(flow.period("d\(month)", original: "d0", user: nil, from: Double(-200 + 30 * month), to: Double(-170 + 30 * month)))
        }
        flow.notify(flow.period("f0", original: "f0", user: nil, from: -80, to: -50, reason: "PURCHASE"))
        let newToken = "0a1b2c3d-0000-4000-8000-00000000c0de"

        let unproven = sign(env, user: newToken, backend: true)
        #expect(unproven.status == 403 && AppStoreFlow.failed(unproven).contains("requireLapsed"),
                "on its word alone the customer is unknown: \(unproven.text)")
        let proven = sign(env, user: newToken, signedTransaction: flow.period("c2", original: "c0", user: nil, from: -70, to: -40))
        #expect(proven.status == 200, "the proven subscription's 90 paid days count: \(proven.text)")

        let other = sign(env, user: "0a1b2c3d-0000-4000-8000-0000000000f0",
                         signedTransaction: flow.period("f0", original: "f0", user: nil, from: -80, to: -50, reason: "PURCHASE"))
        #expect(other.status == 403 && AppStoreFlow.failed(other) == ["minPaidDays"], "\(other.text)")
        #expect(AppStoreFlow.reason("minPaidDays", in: other)?["actual"] as? Int == 30,
                "only the proven subscription counts, not the other tokenless histories")
    }

    @Test("the JWS format carries the proven originalTransactionId as transactionId")
    func jwsBoundToProvenSubscription() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let response = sign(env, user: Self.token, signedTransaction: latest(flow, id: "2000000900000002", original: "2000000900000001"),
                            more: ["format": "jws"])
        #expect(response.status == 200, "\(response.text)")
        let parts = try #require((response.json["jws"] as? String)?.split(separator: ".").map(String.init))
        try #require(parts.count == 3)
        let claims = try #require(try JSONSerialization.jsonObject(with: Base64URL.decode(parts[1])!) as? [String: Any])
        #expect(claims["transactionId"] as? String == "2000000900000001")
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(try publicKey().isValidSignature(rawSignature: Array(signature), of: Array("\(parts[0]).\(parts[1])".utf8)))

        let elsewhere = sign(env, user: Self.token, signedTransaction: latest(flow, id: "2000000900000002", original: "2000000900000001"),
                             more: ["format": "jws", "transactionId": "2000000999999999"])
        #expect(elsewhere.status == 403 && elsewhere.code == "proof_mismatch", "\(elsewhere.text)")
    }

    @Test("with proof an empty userId signs a legacy payload whose token field is empty; without proof it is refused")
    func emptyUserId() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let response = sign(env, user: "", signedTransaction: latest(flow, user: nil))
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["appAccountToken"] as? String == "")
        let nonce = try #require(response.json["nonce"] as? String)
        let payload = "com.example.app\u{2063}ACTIVEKEY1\u{2063}\(TestEnvironment.product)\u{2063}winback\u{2063}\u{2063}\(nonce)\u{2063}1800000000000"
        let signature = try #require(Data(base64Encoded: response.json["signature"] as? String ?? ""))
        #expect(try publicKey().isValidSignature(derSignature: Array(signature), of: Array(payload.utf8)))

        for backend in [false, true] {
            let unproven = sign(env, user: "", backend: backend)
            #expect(unproven.status == 400 && unproven.code == "invalid_request", "\(unproven.text)")
        }
        let tokenCarrying = sign(env, user: "", signedTransaction: latest(flow, id: "p2", original: "p0"))
        #expect(tokenCarrying.status == 403 && tokenCarrying.code == "proof_mismatch",
                "a customer with a token is signed for that token only: \(tokenCarrying.text)")
    }

    @Test("the use case refuses unproven requests as typed values: a key shipped in apps, an empty userId")
    func issuerDemandsProof() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let issuer = env.issuer
        func refusal(user: String, trust: CallerTrust) -> SignRefusal? {
            do {
                _ = try issuer.issue(IssueRequest(bundleId: nil, productId: TestEnvironment.product, offerId: "winback", userId: user,
                                                  format: .legacy, requestedBy: "t", requestId: "r", callerTrust: trust))
                return nil
            } catch {
                return error
            }
        }
        guard case .proofRequired(.appKey) = refusal(user: "u", trust: .app) else {
            Issue.record("a key shipped in apps needs proof")
            return
        }
        guard case .proofRequired(.emptyUserId) = refusal(user: "", trust: .backend) else {
            Issue.record("an empty userId needs proof even from a backend")
            return
        }
        #expect(refusal(user: "u", trust: .backend) == nil)
    }

    @Test("customers without a token have a daily quota each: their proven subscription's")
    func quotaPerProvenSubscription() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try env.putOffer(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: 1)))
        let first = latest(flow, id: "a1", original: "a0", user: nil)
        #expect(sign(env, user: "", signedTransaction: first).status == 200)
        let again = sign(env, user: "", signedTransaction: first)
        #expect(again.status == 429, "\(again.text)")
        let someoneElse = sign(env, user: "", signedTransaction: latest(flow, id: "b1", original: "b0", user: nil))
        #expect(someoneElse.status == 200, "another tokenless customer has a quota of their own: \(someoneElse.text)")
    }

    @Test("an app transaction must verify, be fresh, and be of the transaction's app download")
    func appTransaction() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        try flow.offer(EligibilityCriteria())
        let download = ["appTransactionId": "704289572911"]
        let fresh = sign(env, user: Self.token, signedTransaction: latest(flow, extra: download),
                         signedAppTransaction: TestAppStore.appTransaction(created: flow.at(-1)))
        #expect(fresh.status == 200, "\(fresh.text)")

        let old = sign(env, user: Self.token, signedTransaction: latest(flow, id: "p2", extra: download),
                       signedAppTransaction: TestAppStore.appTransaction(created: flow.at(-8)))
        #expect(old.status == 400 && old.code == "invalid_signed_data", "\(old.text)")
        #expect((old.json["detail"] as? String)?.hasPrefix("signedAppTransaction: app transaction was signed 691200 s ago") == true,
                "\(old.text)")
        let future = sign(env, user: Self.token, signedTransaction: latest(flow, id: "p2", extra: download),
                          signedAppTransaction: TestAppStore.appTransaction(created: flow.at(0.01)))
        #expect(future.status == 400 && future.code == "invalid_signed_data", "\(future.text)")
        let forged = sign(env, user: Self.token, signedTransaction: latest(flow, id: "p2", extra: download),
                          signedAppTransaction: TestAppStore.forged(TestAppStore.appTransaction(created: flow.at(-1))))
        #expect(forged.status == 400 && (forged.json["detail"] as? String)?.hasPrefix("signedAppTransaction: x5c chain") == true,
                "\(forged.text)")
        #expect(try stored(env).map(\.transactionId) == ["p1"], "nothing of a refused request is stored")

        let otherDownload = sign(env, user: Self.token, signedTransaction: latest(flow, id: "p2", extra: ["appTransactionId": "1"]),
                                 signedAppTransaction: TestAppStore.appTransaction(created: flow.at(-1)))
        #expect(otherDownload.status == 403 && otherDownload.code == "proof_mismatch", "\(otherDownload.text)")
        let sandbox = sign(env, user: Self.token, signedTransaction: latest(flow, id: "p2", extra: download),
                           signedAppTransaction: TestAppStore.appTransaction(created: flow.at(-1), environment: "Sandbox"))
        #expect(sandbox.status == 403 && sandbox.code == "proof_mismatch", "\(sandbox.text)")
    }
}
