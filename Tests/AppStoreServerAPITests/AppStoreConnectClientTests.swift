@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

/// A mock App Store Connect API on 127.0.0.1 and clients of it.
final class ConnectTestbed {
    static let keyId = "TEAMKEY123"
    static let issuerId = "69a6de7e-1234-47e3-e053-5b8c7c11a4d1"

    let key: P256PrivateKey
    let connect: MockAppStoreConnect
    let server: MockHTTPServer

    init(pageSize: Int = 2) throws {
        key = try P256PrivateKey.generate()
        connect = MockAppStoreConnect(jwt: MockAppStoreConnectJWT(keyId: Self.keyId, issuerId: Self.issuerId, publicKey: key.publicKey),
                                      pageSize: pageSize)
        server = try connect.start()
    }

    deinit { server.stop() }

    func client(key: P256PrivateKey? = nil, now: @escaping @Sendable () -> Date = { Date() },
                configure adjust: (inout AppStoreConnectConfiguration) -> Void = { _ in }) throws -> AppStoreConnectClient {
        var configuration = AppStoreConnectConfiguration(
            baseURL: server.baseURL, timeout: .seconds(5), connectTimeout: .seconds(2),
            retry: AppStoreServerAPIRetryPolicy(maxRetries: 2, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(40),
                                                maxRateLimitRetries: 2, maxRetryAfterWait: .seconds(5)),
            requestsPerSecond: 1000, hourlyReserve: 10)
        adjust(&configuration)
        return try AppStoreConnectClient(credentials: AppStoreConnectCredentials(keyId: Self.keyId, issuerId: Self.issuerId,
                                                                                 privateKey: key ?? self.key),
                                         configuration: configuration, now: now)
    }

    /// An app with `groups` subscription groups of one subscription each.
    func addApp(bundleId: String = "com.example.app", id: String = "1234567890", groups: Int) {
        connect.add(MockConnectApp(id: id, bundleId: bundleId, groups: (0..<groups).map { index in
            MockConnectGroup(id: "2100000\(index)", referenceName: "Group \(index)",
                             subscriptions: [MockConnectSubscription(id: "6400000\(index)", productId: "com.example.monthly.\(index)")])
        }))
    }
}

/// The App Store Connect error `body` throws, or nil when it returns.
func connectError<T>(_ body: () throws -> T) -> AppStoreConnectError? {
    do {
        _ = try body()
        return nil
    } catch let error as AppStoreConnectError {
        return error
    } catch {
        Issue.record("not an App Store Connect error: \(error)")
        return nil
    }
}

@Suite("App Store Connect API client")
struct AppStoreConnectClientTests {
    static func decode(_ segment: Substring) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("JWT: ES256, kid, typ JWT, iss, iat, exp 20 minutes on, aud appstoreconnect-v1, no bid; reused until a minute before it expires")
    func token() throws {
        let key = try P256PrivateKey.generate()
        let clock = TokenTests.TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let issuer = AppStoreConnectTokenIssuer(credentials: AppStoreConnectCredentials(keyId: "TEAMKEY123", issuerId: "issuer-1",
                                                                                       privateKey: key), now: clock.function)
        let first = try issuer.token()
        let parts = first.split(separator: ".")
        #expect(try Self.decode(parts[0]) as NSDictionary == ["alg": "ES256", "kid": "TEAMKEY123", "typ": "JWT"] as NSDictionary)
        #expect(try Self.decode(parts[1]) as NSDictionary == ["iss": "issuer-1", "iat": 1_800_000_000, "exp": 1_800_001_200,
                                                                "aud": "appstoreconnect-v1"] as NSDictionary)
        #expect(key.publicKey.isValidSignature(rawSignature: Array(try #require(Base64URL.decode(parts[2]))),
                                               of: Array("\(parts[0]).\(parts[1])".utf8)))
        clock.advance(by: 1139)
        #expect(try issuer.token() == first)
        clock.advance(by: 2)
        let second = try issuer.token()
        #expect(second != first)
        #expect(try Self.decode(second.split(separator: ".")[1])["iat"] as? Int == 1_800_001_141)
    }

    @Test("the mock checks the token: the client's passes; another key's, an expired one and the wrong issuer are 401 NOT_AUTHORIZED")
    func mockChecksToken() throws {
        let bed = try ConnectTestbed()
        bed.addApp(groups: 1)
        _ = try bed.client().get("/v1/apps", query: [("filter[bundleId]", "com.example.app")])
        #expect(bed.connect.requests.last?.claims != nil)

        let stranger = try bed.client(key: try P256PrivateKey.generate())
        let refused = connectError { try stranger.get("/v1/apps") }
        guard case .unauthorized(let keyId, _, let errors)? = refused else { Issue.record("\(String(describing: refused))"); return }
        #expect(keyId == ConnectTestbed.keyId)
        #expect(errors.first?.code == "NOT_AUTHORIZED")
        #expect(bed.connect.requests.last?.refusal == "bad signature")

        let old = try bed.client(now: { Date().addingTimeInterval(-1300) })
        #expect(connectError { try old.get("/v1/apps") }?.status == 401)
        #expect(bed.connect.requests.last?.refusal == "expired")

        let tooLong = MockAppStoreConnectJWT(keyId: ConnectTestbed.keyId, issuerId: ConnectTestbed.issuerId, publicKey: bed.key.publicKey)
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"TEAMKEY123","typ":"JWT"}"#.utf8))
        let now = Int(Date().timeIntervalSince1970)
        let claims = Base64URL.encode(Array("{\"aud\":\"appstoreconnect-v1\",\"exp\":\(now + 1800),\"iat\":\(now),\"iss\":\"\(ConnectTestbed.issuerId)\"}".utf8))
        let signature = Base64URL.encode(try bed.key.rawSignature(Array("\(header).\(claims)".utf8)))
        #expect(throws: MockServerError.self) { try tooLong.check(authorization: "Bearer \(header).\(claims).\(signature)", now: Date()).get() }
    }

    @Test("a listing follows links.next exactly as given, page after page, with the query it started with")
    func paging() throws {
        let bed = try ConnectTestbed(pageSize: 2)
        bed.addApp(groups: 5)
        let client = try bed.client()
        var pages: [[String]] = []
        let count = try client.list("/v1/apps/1234567890/subscriptionGroups", query: [("limit", "200"), ("fields[subscriptionGroups]", "referenceName")]) {
            pages.append($0.data.map(\.id))
        }
        #expect(count == 3)
        #expect(pages == [["21000000", "21000001"], ["21000002", "21000003"], ["21000004"]])
        let requests = bed.connect.requests.map(\.request)
        #expect(requests.count == 3)
        #expect(requests.dropFirst().allSatisfy { $0.queryValue("cursor") != nil && $0.queryValue("limit") == "200"
            && $0.queryValue("fields[subscriptionGroups]") == "referenceName" })
        #expect(try client.all("/v1/apps/1234567890/subscriptionGroups").data.map { $0.string("referenceName") ?? "" }
            == (0..<5).map { "Group \($0)" })
    }

    @Test("links.next leaving the API's host, or more pages than allowed, ends the listing with an error")
    func pagingBounds() throws {
        let bed = try ConnectTestbed(pageSize: 1)
        bed.addApp(groups: 4)
        bed.connect.inject(.body(#"{"data": [], "links": {"self": "x", "next": "https://evil.example/v1/apps?cursor=AB"}}"#),
                           pathContains: "/subscriptionGroups")
        let client = try bed.client(configure: { $0.maxPages = 3 })
        let outside = connectError { try client.all("/v1/apps/1234567890/subscriptionGroups") }
        guard case .malformedResponse(let reason)? = outside else { Issue.record("\(String(describing: outside))"); return }
        #expect(reason.contains("evil.example"))
        #expect(!bed.connect.requests.contains { $0.request.path.contains("evil") })

        let tooMany = connectError { try client.all("/v1/apps/1234567890/subscriptionGroups") }
        guard case .malformedResponse(let pagesReason)? = tooMany else { Issue.record("\(String(describing: tooMany))"); return }
        #expect(pagesReason.contains("more than 3 pages"))
    }

    @Test("429 RATE_LIMIT_EXCEEDED is retried after a backoff; past the retries it is rateLimited with Apple's code")
    func rateLimited() throws {
        let bed = try ConnectTestbed()
        bed.addApp(groups: 1)
        let client = try bed.client()
        bed.connect.inject(.rateLimited, pathContains: "/v1/apps")
        #expect(try client.get("/v1/apps").data.count == 1)
        #expect(bed.connect.requests.count == 2)

        for _ in 0..<3 { bed.connect.inject(.rateLimited, pathContains: "/v1/apps") }
        let error = connectError { try client.get("/v1/apps") }
        guard case .rateLimited(_, let errors)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(errors.map(\.code) == ["RATE_LIMIT_EXCEEDED"])
        #expect(bed.connect.requests.count == 5)
    }

    @Test("X-Rate-Limit: once user-hour-rem is down to the reserve nothing more is sent for a while")
    func hourlyAllowance() throws {
        let bed = try ConnectTestbed()
        bed.addApp(groups: 1)
        let client = try bed.client()
        bed.connect.setHourlyRemaining(12)
        _ = try client.get("/v1/apps")
        #expect(client.rateLimit == AppStoreConnectRateLimit(limit: 3600, remaining: 11))
        _ = try client.get("/v1/apps")
        #expect(client.rateLimit?.remaining == 10)
        let error = connectError { try client.get("/v1/apps") }
        #expect(error == .hourlyAllowanceSpent(limit: 3600, remaining: 10))
        #expect(error?.isTransient == true)
        #expect(bed.connect.requests.count == 2)
        #expect(AppStoreConnectRateLimit(header: "user-hour-lim:3500;user-hour-rem:3499;") == AppStoreConnectRateLimit(limit: 3500, remaining: 3499))
        #expect(AppStoreConnectRateLimit(header: "user-hour-lim:3500;") == nil)
    }

    @Test("errors[]: a 4xx is rejected with Apple's status, code, title and detail; a 5xx is retried, then a serverError")
    func errors() throws {
        let bed = try ConnectTestbed()
        bed.addApp(groups: 1)
        let client = try bed.client()
        bed.connect.inject(.error(status: 403, code: "FORBIDDEN_ERROR", title: "This request is forbidden for security reasons",
                                  detail: "The API key in use does not allow this request"), pathContains: "/v1/apps")
        let forbidden = connectError { try client.get("/v1/apps") }
        #expect(forbidden == .rejected(status: 403, errors: [AppStoreConnectErrorItem(
            status: "403", code: "FORBIDDEN_ERROR", title: "This request is forbidden for security reasons",
            detail: "The API key in use does not allow this request")]))
        #expect(forbidden?.description.contains("FORBIDDEN_ERROR: The API key in use does not allow this request") == true)

        bed.connect.inject(.serverError(status: 503), pathContains: "/v1/apps")
        #expect(try client.get("/v1/apps").data.count == 1)
        for _ in 0..<3 { bed.connect.inject(.serverError(status: 500), pathContains: "/v1/apps") }
        let failing = connectError { try client.get("/v1/apps") }
        #expect(failing == .serverError(status: 500, errors: [AppStoreConnectErrorItem(
            status: "500", code: "UNEXPECTED_ERROR", title: "An unexpected error occurred.",
            detail: "An unexpected error occurred on the server side. If this issue continues, contact us.")], attempts: 3))
    }

    @Test("a body larger than the bound is refused, not read whole")
    func bodyBound() throws {
        let bed = try ConnectTestbed()
        bed.addApp(groups: 1)
        let client = try bed.client(configure: { $0.maxResponseBytes = 64 })
        let error = connectError { try client.get("/v1/apps") }
        guard case .malformedResponse(let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("more than 64 bytes"))
    }
}
