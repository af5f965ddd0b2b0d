import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

@Suite("POST /v1/offers/sign")
struct SignEndpointTests {
    static let applePublicKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAErPJyxEu2/oKCrJaaTVTrq39DKJ2XcN6W+k8UvGf+Y/lDWNbFitQocabsDUvSN0edHH3UKP5QPTz4cOlyIPMrXQ=="

    func publicKey() throws -> P256PublicKey {
        try P256PublicKey(spkiDER: Array(Data(base64Encoded: Self.applePublicKey)!))
    }

    @Test("legacy: fields as the contract says, signature verifies over the exact payload, record logged")
    func legacy() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let response = env.send("POST", "/v1/offers/sign", json: """
            {"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "6F0E3C52-2B8F-4F6A-9D7E-1F2A3B4C5D6E"}
            """, headers: ["X-Request-Id": "req-42"])
        #expect(response.status == 200)
        let body = response.json
        #expect(Set(body.keys) == ["format", "bundleId", "productId", "offerId", "appAccountToken", "keyIdentifier", "nonce",
                                   "timestamp", "signature", "expiresAt"])
        #expect(body["format"] as? String == "legacy")
        #expect(body["keyIdentifier"] as? String == "ACTIVEKEY1")
        #expect(body["appAccountToken"] as? String == "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e")
        let nonce = try #require(body["nonce"] as? String)
        #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased())
        let timestamp = try #require((body["timestamp"] as? NSNumber)?.int64Value)
        #expect(timestamp == 1_800_000_000_000)
        #expect(body["expiresAt"] as? String == "2027-01-16T08:00:00Z")
        let payload = ["com.example.app", "ACTIVEKEY1", "com.example.app.pro_monthly", "winback",
                       "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e", nonce, "1800000000000"].joined(separator: "\u{2063}")
        let signatureText = try #require(body["signature"] as? String)
        let signature = try #require(Data(base64Encoded: signatureText))
        #expect(try publicKey().isValidSignature(derSignature: Array(signature), of: Array(payload.utf8)))

        let logged = try #require(try env.signatureLog.signature(nonce: nonce))
        #expect(logged.record.userId == "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e")
        #expect(logged.record.apiKeyName == "client-key")
        #expect(logged.record.requestId == "req-42")
        #expect(logged.record.signature == body["signature"] as? String)
        #expect(logged.record.keyId == "ACTIVEKEY1" && logged.record.format == .legacy)
    }

    @Test("jws: header, claims and signature verify under the app's key")
    func jws() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let response = env.send("POST", "/v1/offers/sign", json: """
            {"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u1", "format": "jws", "transactionId": "2000000001"}
            """)
        #expect(response.status == 200)
        let body = response.json
        #expect(body["signature"] == nil && body["timestamp"] == nil)
        let jws = try #require(body["jws"] as? String)
        let parts = jws.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: Base64URL.decode(parts[0])!) as! [String: Any]
        let claims = try JSONSerialization.jsonObject(with: Base64URL.decode(parts[1])!) as! [String: Any]
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "ACTIVEKEY1" && header["typ"] as? String == "JWT")
        #expect(claims["iss"] as? String == "issuer-1" && claims["aud"] as? String == "promotional-offer")
        #expect(claims["bid"] as? String == "com.example.app" && claims["transactionId"] as? String == "2000000001")
        #expect(claims["nonce"] as? String == body["nonce"] as? String)
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_800_000_000)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(try publicKey().isValidSignature(rawSignature: Array(signature), of: Array("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test("every nonce is fresh")
    func nonceUniqueness() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        var nonces = Set<String>()
        for _ in 0..<50 {
            let response = env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u"}"#)
            nonces.insert(response.json["nonce"] as? String ?? "")
        }
        #expect(nonces.count == 50)
        #expect(try env.signatureLog.verifyIntegrity().records == 50)
    }

    @Test("refusals carry their status and code", arguments: [
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "winback"}"#, 400, "invalid_request"),
        (#"{"productId": "p", "offerId": "winback", "userId": "u", "format": "pdf"}"#, 400, "invalid_request"),
        (#"{"productId": "p", "offerId": "winback", "userId": "u", "extra": 1}"#, 400, "invalid_request"),
        (#"{"productId": "p", "offerId": "winback", "userId": "a\#u{2063}b"}"#, 400, "invalid_request"),
        (#"{"productId": "p x", "offerId": "winback", "userId": "u"}"#, 400, "invalid_request"),
        (#"{"productId": 5, "offerId": "winback", "userId": "u"}"#, 400, "invalid_request"),
        ("not json", 400, "invalid_request"),
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "nope", "userId": "u"}"#, 404, "not_found"),
        (#"{"productId": "com.example.app.other", "offerId": "winback", "userId": "u"}"#, 404, "not_found"),
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u", "bundleId": "com.other"}"#, 404, "not_found"),
        (#"{"productId": "com.example.app.pro_monthly", "offerId": "disabled", "userId": "u"}"#, 403, "not_eligible"),
    ])
    func refusals(body: String, status: Int, code: String) throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        var disabled = TestEnvironment.demoRule("disabled")
        disabled.enabled = false
        try env.putOffer(disabled)
        let response = env.send("POST", "/v1/offers/sign", json: body)
        #expect(response.status == status)
        #expect(response.code == code)
        #expect(response.json["signature"] == nil)
        #expect(try env.signatureLog.verifyIntegrity().records == 0, "no signature was issued")
    }

    @Test("a disabled offer or one outside its dates is refused with its reason")
    func notRunning() throws {
        let env = try TestEnvironment()
        var rule = TestEnvironment.demoRule()
        rule.startsAt = env.now.addingTimeInterval(3600)
        try env.putOffer(rule)
        let response = env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u"}"#)
        #expect(response.status == 403 && response.code == "not_eligible")
        let reasons = response.json["reasons"] as? [[String: Any]] ?? []
        #expect(reasons.map { $0["criterion"] as? String } == ["startsAt"])
        #expect(reasons.first?["message"] as? String != nil)
    }

    @Test("an unknown user is refused with every failed criterion")
    func unknownUserReasons() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 30, excludeRefunded: true)))
        let response = env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "nobody"}"#)
        #expect(response.status == 403)
        let reasons = response.json["reasons"] as? [[String: Any]] ?? []
        #expect(reasons.compactMap { $0["criterion"] as? String } == ["requireLapsed", "minPaidDays"])
        for reason in reasons { #expect(Set(reason.keys) == ["criterion", "required", "actual", "message"]) }
    }

    @Test("the daily quota answers 429 with Retry-After")
    func quota() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: 2)))
        let body = #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u"}"#
        #expect(env.send("POST", "/v1/offers/sign", json: body).status == 200)
        #expect(env.send("POST", "/v1/offers/sign", json: body).status == 200)
        let third = env.send("POST", "/v1/offers/sign", json: body)
        #expect(third.status == 429 && third.code == "rate_limited")
        #expect(third.response.headers["Retry-After"] == "86400")
        #expect(env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "other"}"#).status == 200)
    }

    @Test("when the log cannot be written the answer is 503 and no signature leaves")
    func failingLog() throws {
        let env = try TestEnvironment(signatures: FailingSignatureLog())
        try env.putOffer(TestEnvironment.demoRule())
        let response = env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u"}"#)
        #expect(response.status == 503)
        #expect(response.code == "unavailable")
        #expect(!response.text.contains("signature\":") && !response.text.contains("nonce"))
    }

    @Test("a full disk answers 503, never a signature")
    func diskFull() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try TestEnvironment.nearlyFullDatabase(at: folder.appendingPathComponent("f.sqlite").path)
        let log = try SQLiteSignatureLog(database: database)
        defer { log.close() }
        let env = try TestEnvironment(signatures: log)
        try env.putOffer(TestEnvironment.demoRule())
        var statuses: [Int] = []
        for _ in 0..<400 {
            let response = env.send("POST", "/v1/offers/sign", json: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u"}"#)
            statuses.append(response.status)
            if response.status != 200 {
                #expect(response.json["signature"] == nil)
                break
            }
        }
        #expect(statuses.last == 503)
        #expect(try log.verifyIntegrity().records == statuses.filter { $0 == 200 }.count)
    }
}

/// A signature log whose every append fails, as a broken disk would.
struct FailingSignatureLog: SignatureLog {
    func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature {
        throw .unavailable("disk I/O error")
    }
    func append(all records: [SignatureRecord]) throws(SignatureLogError) -> [LoggedSignature] {
        throw .unavailable("disk I/O error")
    }
    func append(_ record: SignatureRecord, quota: SignatureQuota?,
                assigning assignment: SignedAssignment) throws(SignatureLogError) -> AssignedAppend {
        throw .unavailable("disk I/O error")
    }
    func signature(nonce: String) throws -> LoggedSignature? { nil }
    func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] { [] }
    func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport { IntegrityReport(ok: true, records: 0) }
    func readiness() -> SignatureLogReadiness { .notReady("disk I/O error") }
    func committedEnd() -> ChainLink { .genesis }
}
