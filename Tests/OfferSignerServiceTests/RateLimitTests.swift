import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore
@testable import OfferSignerService
import Testing

@Suite("Abuse protection: token buckets")
struct RateLimitTests {
    @Test("a bucket allows its burst, then refuses with the wait until the next token")
    func bucket() {
        let limiter = TokenBucketLimiter(rate: RateLimit(count: 3, period: 60))
        #expect(limiter.take("k", now: 100) == nil)
        #expect(limiter.take("k", now: 100) == nil)
        #expect(limiter.take("k", now: 100) == nil)
        #expect(limiter.take("k", now: 100) == 20, "one token every 20 s")
        #expect(limiter.take("other", now: 100) == nil, "keys are independent")
        #expect(limiter.take("k", now: 115) == 5)
        #expect(limiter.take("k", now: 120) == nil)
        #expect(limiter.take("k", now: 120) == 20)
    }

    @Test("rates parse as N/s, N/m, N/h or off; anything else is refused")
    func parsing() throws {
        #expect(try RateLimit.parse("30/m") == RateLimit(count: 30, period: 60))
        #expect(try RateLimit.parse("1000/s") == RateLimit(count: 1000, period: 1))
        #expect(try RateLimit.parse("off") == nil)
        for bad in ["30", "0/s", "-1/m", "10/d", "x/s"] {
            #expect(throws: SettingsError.self) { try RateLimit.parse(bad) }
        }
        let settings = try ServiceSettings.resolve(arguments: ["--rate-sign-per-user", "5/m"], environment: ["OFFER_SIGNER_RATE_SIGN_PER_KEY": "off"])
        #expect(settings.signRatePerUser == RateLimit(count: 5, period: 60) && settings.signRatePerAPIKey == nil)
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: ["--max-connections", "0"], environment: [:]) }
    }

    @Test("signing past the per-user limit answers 429 with Retry-After; other users go on")
    func perUser() throws {
        let env = try TestEnvironment()
        env.rateLimits = RateLimits(signPerUser: RateLimit(count: 2, period: 60))
        try env.putOffer(TestEnvironment.demoRule())
        func sign(_ user: String) -> TestResponse {
            env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
        }
        #expect(sign("u").status == 200)
        #expect(sign("U").status == 200)
        let limited = sign("u")
        #expect(limited.status == 429 && limited.code == "rate_limited")
        #expect(Int(limited.response.headers["Retry-After"] ?? "") ?? 0 >= 1)
        #expect(sign("someone-else").status == 200)
    }

    @Test("the per-user limit counts what the proof proves: other spellings of one proof are refused or counted as one customer")
    func provenCustomer() throws {
        let env = try TestEnvironment()
        env.rateLimits = RateLimits(signPerUser: RateLimit(count: 3, period: 60))
        try env.putOffer(TestEnvironment.demoRule())
        let proof = TestAppStore.transaction(id: "t2", original: "t1", user: nil, purchased: env.now - 40 * 86_400,
                                             expires: env.now - 10 * 86_400, signed: env.now - 86_400, reason: "RENEWAL")
        func sign(_ jws: String, user: String = "") -> TestResponse {
            env.send("POST", "/v1/offers/sign", json: TestAppStore.json([
                "productId": TestEnvironment.product, "offerId": "winback", "userId": user, "signedTransaction": jws]))
        }
        let parts = proof.split(separator: ".").map(String.init)
        // Other spellings of the same bytes: padding, and stray bits past the last byte (64 bytes: 86
        // characters, the last carrying 2 bits of data and 4 unused).
        let padded = parts[0] + "." + parts[1] + "." + parts[2] + "=="
        let last = parts[2].last!
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let strayBits = parts[0] + "." + parts[1] + "." + parts[2].dropLast() + String(alphabet[alphabet.firstIndex(of: last)! | 1])
        for variant in [padded, strayBits] {
            let refused = sign(variant)
            #expect(refused.status == 400 && refused.code == "invalid_signed_data", "\(refused.text)")
        }
        // The other valid signature of the same data (s replaced by n − s) is the same customer.
        let highS = parts[0] + "." + parts[1] + "." + Base64URL.encode(Self.otherValidSignature(Array(Base64URL.decode(parts[2])!)))
        #expect(sign(proof).status == 200)
        #expect(sign(highS).status == 200, "ECDSA accepts both; the limit must not be keyed on either text")
        #expect(sign(proof, user: "someone").status == 200, "a user ID with the same proof is the same customer")
        let limited = sign(highS, user: "someone-else")
        #expect(limited.status == 429 && limited.code == "rate_limited", "\(limited.text)")
        let before = try env.signatureLog.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 100).count
        #expect(before == 3)
    }

    /// `r ‖ (n − s)`: the other signature ECDSA accepts for the same message and key.
    static func otherValidSignature(_ raw: [UInt8]) -> [UInt8] {
        let order: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                              0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51]
        var s = Array(raw[32...])
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = Int(order[index]) - Int(s[index]) - borrow
            s[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        return Array(raw[..<32]) + s
    }

    @Test("behind a trusted proxy the client is the X-Forwarded-For address; an untrusted peer's header is ignored")
    func forwardedFor() throws {
        let env = try TestEnvironment()
        env.rateLimits = RateLimits(notificationsPerAddress: RateLimit(count: 1, period: 3600))
        env.trustedProxies = ["10.0.0.1"]
        func post(from peer: String, forwardedFor: String?) -> Int {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let forwardedFor { headers.set("X-Forwarded-For", forwardedFor) }
            let request = HTTPRequest(method: "POST", path: "/v1/notifications/appstore", headers: headers,
                                      body: Array(#"{"signedPayload": "x"}"#.utf8), remoteAddress: peer)
            return env.router.respond(to: request).status
        }
        #expect(post(from: "10.0.0.1", forwardedFor: "203.0.113.5") == 400)
        #expect(post(from: "10.0.0.1", forwardedFor: "203.0.113.6") == 400, "another client behind the same proxy")
        #expect(post(from: "10.0.0.1", forwardedFor: "1.2.3.4, 203.0.113.5") == 429, "the rightmost untrusted hop counts")
        #expect(post(from: "198.51.100.9", forwardedFor: "203.0.113.7") == 400)
        #expect(post(from: "198.51.100.9", forwardedFor: "203.0.113.8") == 429, "an untrusted peer cannot pick its address")
    }

    @Test("per API key, and notifications per client address")
    func perKeyAndAddress() throws {
        let env = try TestEnvironment()
        env.rateLimits = RateLimits(signPerAPIKey: RateLimit(count: 1, period: 3600),
                                                 notificationsPerAddress: RateLimit(count: 1, period: 3600))
        let sign = #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "u"}"#
        #expect(env.send("POST", "/v1/offers/sign", json: sign).status == 404)
        #expect(env.send("POST", "/v1/offers/sign", json: sign).status == 429)
        #expect(env.send("POST", "/v1/offers/sign", role: .admin, json: sign).status == 404, "another key has its own bucket")
        #expect(env.send("POST", "/v1/notifications/appstore", role: nil, json: #"{"signedPayload": "x"}"#).status == 400)
        #expect(env.send("POST", "/v1/notifications/appstore", role: nil, json: #"{"signedPayload": "x"}"#).status == 429)
    }
}
