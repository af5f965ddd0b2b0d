import Foundation
@testable import OfferSignerApplication
import OfferSignerHTTP
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
