import Foundation
@testable import OfferSignerApplication
import OfferSignerHTTP
@testable import OfferSignerService
import Testing

@Suite("Roles: every role against every route")
struct RoleTableTests {
    /// The contract's endpoint table: who may call what. `nil` means no token is needed.
    static let contract: [(String, String, Set<Role>?)] = [
        ("POST", "/v1/offers/sign", [.client, .admin]),
        ("POST", "/v1/offers/placement", [.client, .admin]),
        ("POST", "/v1/offers/introductory-eligibility", [.client, .admin]),
        ("GET", "/v1/users/u1/offers", [.client, .marketing, .admin]),
        ("GET", "/v1/users/u1/history", [.marketing, .admin]),
        ("GET", "/v1/admin/offers", [.marketing, .admin]),
        ("GET", "/v1/admin/offers/o1", [.marketing, .admin]),
        ("PUT", "/v1/admin/offers/o1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/offers/o1", [.marketing, .admin]),
        ("POST", "/v1/admin/offers/o1/simulate", [.marketing, .admin]),
        ("GET", "/v1/admin/offers/o1/changes", [.marketing, .admin]),
        ("POST", "/v1/admin/history/import", [.admin]),
        ("POST", "/v1/admin/history/refresh", [.admin]),
        ("GET", "/v1/admin/retention-rules", [.marketing, .admin]),
        ("GET", "/v1/admin/retention-rules/r1", [.marketing, .admin]),
        ("PUT", "/v1/admin/retention-rules/r1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/retention-rules/r1", [.marketing, .admin]),
        ("GET", "/v1/admin/retention-rules/r1/changes", [.marketing, .admin]),
        ("GET", "/v1/admin/retention-messages", [.marketing, .auditor, .admin]),
        ("PUT", "/v1/admin/retention-messages/msg1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/retention-messages/msg1", [.marketing, .admin]),
        ("GET", "/v1/admin/retention-images", [.marketing, .auditor, .admin]),
        ("PUT", "/v1/admin/retention-images/img1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/retention-images/img1", [.marketing, .admin]),
        ("GET", "/v1/admin/retention-defaults", [.marketing, .auditor, .admin]),
        ("GET", "/v1/admin/retention-defaults/prod1/loc1", [.marketing, .auditor, .admin]),
        ("PUT", "/v1/admin/retention-defaults/prod1/loc1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/retention-defaults/prod1/loc1", [.marketing, .admin]),
        ("GET", "/v1/admin/retention-realtime-url", [.auditor, .admin]),
        ("PUT", "/v1/admin/retention-realtime-url", [.admin]),
        ("DELETE", "/v1/admin/retention-realtime-url", [.admin]),
        ("POST", "/v1/admin/retention-performance-tests", [.admin]),
        ("GET", "/v1/admin/retention-performance-tests/req1", [.auditor, .admin]),
        ("GET", "/v1/audit/retention-messaging-changes", [.auditor, .admin]),
        ("GET", "/v1/admin/introductory-offer-rules", [.marketing, .admin]),
        ("GET", "/v1/admin/introductory-offer-rules/r1", [.marketing, .admin]),
        ("PUT", "/v1/admin/introductory-offer-rules/r1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/introductory-offer-rules/r1", [.marketing, .admin]),
        ("GET", "/v1/admin/introductory-offer-rules/r1/changes", [.marketing, .admin]),
        ("GET", "/v1/admin/placements", [.marketing, .admin]),
        ("GET", "/v1/admin/placements/pl1", [.marketing, .admin]),
        ("PUT", "/v1/admin/placements/pl1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/placements/pl1", [.marketing, .admin]),
        ("GET", "/v1/admin/placements/pl1/changes", [.marketing, .admin]),
        ("GET", "/v1/admin/experiments", [.marketing, .admin]),
        ("GET", "/v1/admin/experiments/ex1", [.marketing, .admin]),
        ("PUT", "/v1/admin/experiments/ex1", [.marketing, .admin]),
        ("DELETE", "/v1/admin/experiments/ex1", [.marketing, .admin]),
        ("POST", "/v1/admin/experiments/ex1/start", [.marketing, .admin]),
        ("POST", "/v1/admin/experiments/ex1/stop", [.marketing, .admin]),
        ("GET", "/v1/admin/experiments/ex1/changes", [.marketing, .admin]),
        ("POST", "/v1/notifications/appstore", nil),
        ("POST", "/v1/retention/appstore", nil),
        ("GET", "/v1/audit/signatures", [.auditor, .admin]),
        ("GET", "/v1/audit/signatures/n1", [.auditor, .admin]),
        ("POST", "/v1/audit/verify", [.auditor, .admin]),
        ("GET", "/v1/audit/integrity", [.auditor, .admin]),
        ("GET", "/v1/audit/checkpoints", [.auditor, .admin]),
        ("GET", "/v1/audit/offer-changes", [.auditor, .admin]),
        ("GET", "/v1/audit/retention-rule-changes", [.auditor, .admin]),
        ("GET", "/v1/audit/introductory-offer-rule-changes", [.auditor, .admin]),
        ("GET", "/v1/audit/placement-changes", [.auditor, .admin]),
        ("GET", "/v1/audit/experiment-changes", [.auditor, .admin]),
        ("GET", "/v1/admin/consents", [.auditor, .admin]),
        ("POST", "/v1/admin/consents/a1/clear", [.admin]),
        ("POST", "/v1/admin/consents/events/ev1/clear", [.admin]),
        ("GET", "/v1/stats/offers", [.marketing, .auditor, .admin]),
        ("GET", "/v1/stats/offers/o1", [.marketing, .auditor, .admin]),
        ("GET", "/v1/stats/offers/o1/outcomes", [.marketing, .auditor, .admin]),
        ("GET", "/v1/stats/experiments/ex1", [.marketing, .auditor, .admin]),
        ("GET", "/v1/audit/redemptions", [.auditor, .admin]),
        ("GET", "/v1/audit/app-account-token-links", [.auditor, .admin]),
        ("GET", "/v1/admin/catalog", [.marketing, .auditor, .admin]),
        ("POST", "/v1/admin/catalog/sync", [.admin]),
        ("POST", "/v1/admin/appstore/promotional-offers", [.marketing, .admin]),
        ("PATCH", "/v1/admin/appstore/promotional-offers/oc1/prices", [.marketing, .admin]),
        ("DELETE", "/v1/admin/appstore/promotional-offers/oc1", [.marketing, .admin]),
        ("GET", "/v1/admin/appstore/price-points", [.marketing, .admin]),
        ("GET", "/v1/admin/appstore/price-points/equalizations", [.marketing, .admin]),
        ("GET", "/v1/audit/appstore-changes", [.auditor, .admin]),
        ("GET", "/v1/admin/webhooks", [.admin]),
        ("GET", "/v1/admin/webhooks/wh1", [.admin]),
        ("PUT", "/v1/admin/webhooks/wh1", [.admin]),
        ("DELETE", "/v1/admin/webhooks/wh1", [.admin]),
        ("POST", "/v1/admin/webhooks/wh1/rotate-secret", [.admin]),
        ("GET", "/v1/admin/webhooks/wh1/changes", [.admin]),
        ("GET", "/v1/admin/webhooks/wh1/deliveries", [.admin]),
        ("POST", "/v1/admin/webhooks/wh1/deliveries/ev1/retry", [.admin]),
        ("POST", "/v1/admin/webhooks/wh1/replay", [.admin]),
        ("GET", "/v1/keys", Set(Role.allCases)),
        ("GET", "/v1/me", Set(Role.allCases)),
        ("GET", "/healthz", nil),
        ("GET", "/readyz", nil),
        ("GET", "/metrics", nil),
        ("GET", "/console", nil),
        ("GET", "/console/app.js", nil),
    ]

    @Test("each role is let through exactly where the contract allows it")
    func table() throws {
        let env = try TestEnvironment()
        for (method, path, allowed) in Self.contract {
            for role in Role.allCases {
                let response = env.send(method, path, role: role)
                if let allowed, !allowed.contains(role) {
                    #expect(response.status == 403, "\(role) \(method) \(path)")
                    #expect(response.code == "forbidden")
                } else {
                    #expect(![401, 403].contains(response.status), "\(role) \(method) \(path) got \(response.status)")
                }
            }
            let anonymous = env.send(method, path, role: nil)
            if allowed == nil {
                #expect(![401, 403].contains(anonymous.status), "\(method) \(path)")
            } else {
                #expect(anonymous.status == 401 && anonymous.code == "unauthorized", "\(method) \(path)")
            }
        }
    }

    @Test("every route in the router is in the contract table")
    func complete() throws {
        let env = try TestEnvironment()
        let routes = env.router.routes.map { "\($0.method) \($0.pattern)" }
        let contract = Set(Self.contract.map { "\($0.0) \($0.1.replacingOccurrences(of: "u1", with: "{userId}").replacingOccurrences(of: "o1", with: "{offerId}").replacingOccurrences(of: "n1", with: "{nonce}").replacingOccurrences(of: "app.js", with: "{asset}").replacingOccurrences(of: "pl1", with: "{placementId}").replacingOccurrences(of: "ex1", with: "{experimentId}").replacingOccurrences(of: "r1", with: "{ruleId}").replacingOccurrences(of: "a1", with: "{appTransactionId}").replacingOccurrences(of: "ev1", with: "{eventId}").replacingOccurrences(of: "msg1", with: "{messageId}").replacingOccurrences(of: "img1", with: "{imageId}").replacingOccurrences(of: "req1", with: "{requestId}").replacingOccurrences(of: "prod1/loc1", with: "{productId}/{locale}").replacingOccurrences(of: "wh1", with: "{webhookId}").replacingOccurrences(of: "oc1", with: "{offerCode}"))" })
        #expect(Set(routes) == contract && Set(routes).count == routes.count)
    }

    @Test("openapi.yaml describes every route with its method")
    func openAPIInStep() throws {
        let env = try TestEnvironment()
        let spec = try String(contentsOf: TestEnvironment.fixtures.appendingPathComponent("../../../openapi.yaml").standardizedFileURL, encoding: .utf8)
        let lines = spec.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for route in env.router.routes {
            guard let start = lines.firstIndex(of: "  \(route.pattern):") else {
                Issue.record("openapi.yaml lacks \(route.pattern)")
                continue
            }
            let block = lines[(start + 1)...].prefix { !$0.hasPrefix("  /") && !$0.hasPrefix("components:") }
            #expect(block.contains("    \(route.method.lowercased()):"), "openapi.yaml lacks \(route.method) \(route.pattern)")
        }
    }

    @Test("a history import is refused from its head unless the token's role may import")
    func uploadPreflight() throws {
        let env = try TestEnvironment()
        func head(_ role: Role?) -> HTTPRequest {
            var headers: HTTPHeaders = ["Content-Type": "application/x-ndjson"]
            if let role { headers.set("Authorization", "Bearer \(TestEnvironment.tokens[role]!)") }
            return HTTPRequest(method: "POST", path: "/v1/admin/history/import", headers: headers)
        }
        #expect(env.router.answersBeforeBody(head(nil)))
        #expect(env.router.answersBeforeBody(head(.client)))
        #expect(env.router.answersBeforeBody(head(.marketing)))
        #expect(!env.router.answersBeforeBody(head(.admin)))
        #expect(!env.router.answersBeforeBody(HTTPRequest(method: "POST", path: "/v1/offers/sign")), "only spooled routes are checked early")
    }

    @Test("an unknown token is 401; a malformed Authorization header is 401")
    func badTokens() throws {
        let env = try TestEnvironment()
        for header in ["Bearer wrong", "Basic abc", "Bearer", "bearer  "] {
            let response = env.send("GET", "/v1/keys", role: nil, headers: ["Authorization": header])
            #expect(response.status == 401, "\(header)")
            #expect(response.response.headers["WWW-Authenticate"] == "Bearer")
        }
    }

    @Test("GET /v1/keys lists every key's public half and never a private key")
    func keys() throws {
        let env = try TestEnvironment()
        let response = env.send("GET", "/v1/keys", role: .auditor)
        let keys = response.json["keys"] as? [[String: Any]] ?? []
        #expect(keys.map { $0["keyId"] as? String } == ["ACTIVEKEY1", "OLDKEY0001"])
        #expect(keys.map { $0["active"] as? Bool } == [true, false])
        #expect((keys.first?["publicKeyPEM"] as? String)?.hasPrefix("-----BEGIN PUBLIC KEY-----") == true)
        #expect(!response.text.contains("PRIVATE"))
    }
}
