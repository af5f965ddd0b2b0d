@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Synchronization
import Testing

@Suite("App Store Server API JWT")
struct TokenTests {
    final class TestClock: Sendable {
        private let current: Mutex<Date>
        init(_ date: Date) { current = Mutex(date) }
        func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var function: @Sendable () -> Date { { [self] in current.withLock { $0 } } }
    }

    static func credentials(_ key: P256PrivateKey) -> AppStoreServerAPICredentials {
        AppStoreServerAPICredentials(keyId: "2X9R4HXF34", issuerId: APITestbed.issuerId, bundleId: TestSignedData.bundleId, privateKey: key)
    }

    static func decode(_ segment: Substring) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("header alg/kid/typ, claims iss/iat/exp/aud/bid, ES256 signature under the key")
    func shape() throws {
        let key = try P256PrivateKey.generate()
        let issuer = AppStoreServerAPITokenIssuer(credentials: Self.credentials(key), now: { Date(timeIntervalSince1970: 1_800_000_000.7) })

        let token = try issuer.token()

        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        let header = try Self.decode(parts[0])
        let claims = try Self.decode(parts[1])
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "2X9R4HXF34", "typ": "JWT"] as NSDictionary)
        #expect(claims as NSDictionary == ["iss": APITestbed.issuerId, "iat": 1_800_000_000, "exp": 1_800_000_300,
                                           "aud": "appstoreconnect-v1", "bid": TestSignedData.bundleId] as NSDictionary)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(key.publicKey.isValidSignature(rawSignature: Array(signature), of: Array("\(parts[0]).\(parts[1])".utf8)))
        #expect(!(try P256PrivateKey.generate()).publicKey.isValidSignature(rawSignature: Array(signature),
                                                                            of: Array("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test("a token is reused until a minute before it expires, then replaced")
    func reuse() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let issuer = AppStoreServerAPITokenIssuer(credentials: Self.credentials(try P256PrivateKey.generate()), now: clock.function)

        let first = try issuer.token()
        clock.advance(by: 239)
        let stillFirst = try issuer.token()
        clock.advance(by: 2)
        let second = try issuer.token()

        #expect(first == stillFirst)
        #expect(second != first)
        #expect((try Self.decode(second.split(separator: ".")[1]))["iat"] as? Int == 1_800_000_241)
    }

    @Test("threads asking at once share one token")
    func concurrent() throws {
        let issuer = AppStoreServerAPITokenIssuer(credentials: Self.credentials(try P256PrivateKey.generate()), now: { Date() })
        let tokens = Mutex<Set<String>>([])

        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            let token = try! issuer.token()
            tokens.withLock { _ = $0.insert(token) }
        }

        #expect(tokens.withLock { $0.count } == 1)
    }

    @Test("requests through the mock carry one token, which the mock accepts")
    func reusedOverTheWire() throws {
        let testbed = try APITestbed(pageSize: 2)
        let ids = testbed.addCustomer(first: 30_000, count: 7)
        let client = try testbed.client()

        _ = try client.transactionHistory(transactionId: ids[0])

        let seen = testbed.store.requests
        #expect(seen.count == 4)
        #expect(Set(seen.map(\.request.authorization)).count == 1)
        #expect(seen.allSatisfy { $0.claims.map { $0.expires - $0.issuedAt } == 300 })
    }

    @Test("the mock refuses tokens Apple would refuse", arguments: [
        ("aud", "promotional-offer"), ("bid", "com.other.app"), ("iss", "another-issuer"), ("exp", "3700"), ("expired", ""), ("kid", "NOPE"),
    ])
    func mockRefuses(claim: String, value: String) throws {
        let testbed = try APITestbed()
        testbed.addCustomer(first: 31_000, count: 1)
        let now = Int(Date().timeIntervalSince1970)
        var header: [(String, JSONValue)] = [("alg", .string("ES256")), ("kid", .string(APITestbed.keyId)), ("typ", .string("JWT"))]
        var claims: [String: JSONValue] = ["iss": .string(APITestbed.issuerId), "iat": .int(now), "exp": .int(now + 300),
                                            "aud": .string("appstoreconnect-v1"), "bid": .string(TestSignedData.bundleId)]
        switch claim {
        case "exp": claims["exp"] = .int(now + Int(value)!)
        case "expired": (claims["iat"], claims["exp"]) = (.int(now - 400), .int(now - 100))
        case "kid": header[1] = ("kid", .string(value))
        default: claims[claim] = .string(value)
        }
        let refused = Self.token(header: header, claims: claims, testbed: testbed)
        var valid = claims
        valid["exp"] = .int(now + 300)
        (valid["iat"], valid["aud"], valid["bid"], valid["iss"]) = (.int(now), .string("appstoreconnect-v1"),
                                                                    .string(TestSignedData.bundleId), .string(APITestbed.issuerId))
        let accepted = Self.token(header: [("alg", .string("ES256")), ("kid", .string(APITestbed.keyId)), ("typ", .string("JWT"))],
                                  claims: valid, testbed: testbed)

        #expect(try Self.status(of: refused, testbed) == 401)
        #expect(try Self.status(of: accepted, testbed) == 200)
    }

    static func token(header: [(String, JSONValue)], claims: [String: JSONValue], testbed: APITestbed) -> String {
        let input = Base64URL.encode(JSONValue.object(header).utf8) + "."
            + Base64URL.encode(JSONValue.object(claims.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        let der = try! testbed.key.signDER(Array(input.utf8))
        return input + "." + Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
    }

    static func status(of token: String, _ testbed: APITestbed) throws -> Int {
        let response = try CurlHTTPClient().perform(HTTPExchangeRequest(
            method: "GET", url: testbed.server.baseURL + "/inApps/v2/history/31000", headers: [("Authorization", "Bearer " + token)],
            body: nil, timeout: .seconds(5), connectTimeout: .seconds(2), maxResponseBytes: 1 << 20))
        return response.status
    }
}
