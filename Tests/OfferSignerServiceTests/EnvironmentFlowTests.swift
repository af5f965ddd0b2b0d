import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

/// Sandbox and production history kept apart, end to end: a request is decided on Production
/// history unless it names `Sandbox`, and the history shows each item's environment.
@Suite("Sandbox history never decides a production offer")
struct EnvironmentFlowTests {
    typealias Flow = AppStoreFlow

    func flow(environments: Set<String> = ["Production", "Sandbox"]) throws -> AppStoreFlow {
        let flow = AppStoreFlow(env: try TestEnvironment(environments: environments))
        try flow.offer(EligibilityFlowTests.criteria)
        return flow
    }

    @Test("a user with only Sandbox history is unknown to production and eligible with \"environment\": \"Sandbox\"")
    func sandboxOnly() throws {
        let flow = try flow()
        flow.paidMonths("sb", user: "tester", from: -190, count: 3, environment: "Sandbox")  // lapsed 100 days, in Sandbox
        let production = flow.sign("tester")
        #expect(production.status == 403)
        #expect(Flow.failed(production) == ["requireLapsed", "minPaidDays", "minDaysSinceExpiry", "maxDaysSinceExpiry", "storefronts"],
                "an unknown user in production")
        #expect(flow.sign("tester", fields: #""environment": "Production""#).status == 403)
        let sandbox = flow.sign("tester", fields: #""environment": "Sandbox""#)
        #expect(sandbox.status == 200, "\(sandbox.text)")
        #expect(sandbox.json["signature"] != nil)
    }

    @Test("mixed history: each environment has its own facts, even where transaction IDs repeat")
    func mixed() throws {
        let flow = try flow()
        // Production: lapsed 100 days after 90 paid days (eligible). Sandbox: the same
        // transaction IDs, still subscribed (not lapsed).
        flow.paidMonths("t", user: "both", from: -190, count: 3)
        flow.paidMonths("t", user: "both", from: -60, count: 3, environment: "Sandbox")
        #expect(flow.sign("both").status == 200)
        #expect(Flow.failed(flow.sign("both", fields: #""environment": "Sandbox""#)) == ["requireLapsed", "minDaysSinceExpiry", "maxDaysSinceExpiry"])

        let history = flow.history("both")
        let groups = history["groups"] as? [[String: Any]] ?? []
        #expect(groups.compactMap { $0["environment"] as? String } == ["Production", "Sandbox"])
        #expect(flow.facts("both")?["daysSinceExpiry"] as? Int == 100)
        #expect(flow.facts("both", environment: "Sandbox")?["isActive"] as? Bool == true)
        let transactions = history["transactions"] as? [[String: Any]] ?? []
        #expect(transactions.count == 6, "t0…t2 of each environment, none overwriting the other")
        #expect(transactions.filter { $0["environment"] as? String == "Sandbox" }.count == 3)

        let offers = { (query: [String: String]) in
            (flow.env.send("GET", "/v1/users/both/offers", query: query).json["offers"] as? [[String: Any]])?.first?["eligible"] as? Bool
        }
        #expect(offers([:]) == true)
        #expect(offers(["environment": "Sandbox"]) == false)
    }

    @Test("simulate counts the users of one environment")
    func simulate() throws {
        let flow = try flow()
        flow.paidMonths("p", user: "prod-user", from: -190, count: 3)
        flow.paidMonths("s", user: "sandbox-user", from: -190, count: 3, environment: "Sandbox")
        let production = flow.env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing).json
        #expect(production["environment"] as? String == "Production")
        #expect(production["known"] as? Int == 1 && production["sample"] as? [String] == ["prod-user"])
        let sandbox = flow.env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing, query: ["environment": "Sandbox"]).json
        #expect(sandbox["known"] as? Int == 1 && sandbox["sample"] as? [String] == ["sandbox-user"])
    }

    @Test("an environment the deployment does not accept, or no environment at all, is refused with 400")
    func notAccepted() throws {
        let flow = try flow(environments: ["Production"])
        let sign = flow.sign("someone", fields: #""environment": "Sandbox""#)
        #expect(sign.status == 400 && sign.code == "invalid_request")
        #expect((sign.json["detail"] as? String)?.contains("Sandbox") == true)
        #expect(flow.sign("someone", fields: #""environment": "Xcode""#).status == 400)
        #expect(flow.sign("someone", fields: #""environment": "Staging""#).code == "invalid_request")
        #expect(flow.env.send("GET", "/v1/users/someone/offers", query: ["environment": "Sandbox"]).status == 400)
        #expect(flow.env.send("POST", "/v1/admin/offers/winback/simulate", role: .marketing, query: ["environment": "Sandbox"]).status == 400)
        #expect(flow.env.send("GET", "/v1/users/someone/offers", query: ["environment": "production"]).status == 400, "names are Apple's, case and all")
    }
}
