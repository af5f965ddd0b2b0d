import Foundation
@testable import OfferSignerApplication
import OfferSignerHTTP
@testable import OfferSignerService
import Testing

@Suite("Hostile input")
struct HostileInputTests {
    @Test("a user ID of one character with thousands of combining marks is refused")
    func combiningMarks() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let long = "a" + String(repeating: "\u{301}", count: 5000)
        #expect(long.count == 1)
        let response = env.send("POST", "/v1/offers/sign", json: TestAppStore.json(
            ["productId": TestEnvironment.product, "offerId": "winback", "userId": long]))
        #expect(response.status == 400 && response.code == "invalid_request")
        #expect(InputRules.isUserId("é" + String(repeating: "x", count: 255)))
        #expect(!InputRules.isUserId(String(repeating: "x", count: 257)))
    }

    @Test("invented HTTP methods are counted as 'other' in the metrics, never as new series")
    func inventedMethods() throws {
        let env = try TestEnvironment()
        for index in 0..<50 { _ = env.send("X\(index)Y", "/v1/keys", role: nil) }
        let metrics = env.send("GET", "/metrics", role: nil).text
        #expect(!metrics.contains("X1Y"))
        #expect(metrics.contains(#"method="other",status="405"} 50"#))
    }

    @Test("CSV fields that a spreadsheet would run as formulas are defused")
    func csvFormulas() {
        #expect(CSV.row(["=HYPERLINK(\"x\")", "+1", "-2", "@a", "plain", "a,b"])
                == "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@a,plain,\"a,b\"\r\n")
    }
}

extension HostileInputTests {
    /// A small deterministic generator, so a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state ^ (state >> 29)
        }
    }

    @Test("random and mutated bodies on every route never produce a 500")
    func noServerErrors() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        var random = SeededGenerator(state: 20261130)
        let notification = TestAppStore.notification(transaction: TestAppStore.transaction(
            id: "f1", user: "fuzz", purchased: env.now - 86_400 * 40, expires: env.now - 86_400 * 10, signed: env.now - 60), signed: env.now - 60)
        let seeds = [
            #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "u", "format": "jws"}"#,
            TestAppStore.json(["signedPayload": notification]),
            #"{"offerId": "winback", "bundleId": "com.example.app", "productIds": ["p"], "eligibility": {"minPaidDays": 3}}"#,
            #"{"bundleId": "b", "keyIdentifier": "k", "productId": "p", "offerId": "o", "appAccountToken": "a", "nonce": "n", "timestamp": 1, "signature": "AA=="}"#,
        ]
        let routes = env.router.routes
        for round in 0..<1500 {
            let route = routes[Int.random(in: 0..<routes.count, using: &random)]
            let path = route.pattern.replacingOccurrences(of: "{offerId}", with: "winback")
                .replacingOccurrences(of: "{userId}", with: "fuzz").replacingOccurrences(of: "{nonce}", with: "n")
            var body = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)].utf8)
            for _ in 0..<Int.random(in: 0...6, using: &random) where !body.isEmpty {
                let index = Int.random(in: 0..<body.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: body[index] = UInt8.random(in: 0...255, using: &random)
                case 1: body.remove(at: index)
                default: body.insert(UInt8.random(in: 0...255, using: &random), at: index)
                }
            }
            let file = env.folder.appendingPathComponent("fuzz-\(round)")
            if route.body.spoolToDisk { try Data(body).write(to: file) }
            let request = HTTPRequest(method: route.method, path: path,
                                      headers: ["Authorization": "Bearer admin-token", "Content-Type": "application/json"],
                                      body: route.body.spoolToDisk ? [] : body, bodyFile: route.body.spoolToDisk ? file : nil)
            let response = env.router.respond(to: request)
            // The Retention Messaging routes need Apple's API, which this environment has not: their 503 says so, nothing failed.
            let needsApple = response.status == 503 && String(decoding: response.body, as: UTF8.self).contains("App Store Server API is not configured")
            #expect(response.status < 500 || needsApple, "round \(round): \(route.method) \(path) answered \(response.status) to \(String(decoding: body, as: UTF8.self).prefix(200))")
        }
    }
}

/// Collects log lines (for the test that no secret reaches the log).
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}

extension HostileInputTests {
    @Test("the request log names the API key and never holds a token, a key or a signature")
    func logHoldsNoSecrets() throws {
        let env = try TestEnvironment()
        let capture = LogCapture()
        env.logger = Logger(minimumLevel: .debug) { capture.append($0) }
        try env.putOffer(TestEnvironment.demoRule())
        let signed = env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "u", "format": "jws"}"#)
        _ = env.send("GET", "/v1/keys", role: nil, headers: ["Authorization": "Bearer wrong-secret-token"])
        _ = env.send("GET", "/v1/keys", role: .auditor)
        let log = capture.text
        #expect(log.contains(#""apiKey":"client-key""#))
        #expect(log.split(separator: "\n").count >= 3)
        for secret in TestEnvironment.tokens.values + ["wrong-secret-token", signed.json["jws"] as? String ?? "missing", "PRIVATE KEY", "PUBLIC KEY"] {
            #expect(!log.contains(secret), "log holds \(secret.prefix(20))")
        }
    }
}
