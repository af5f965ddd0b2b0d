import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerStore
import Testing

/// `offer-signer outcomes report` and `outcomes rebuild`, as an operator runs them on a database
/// the service wrote.
@Suite("The outcomes commands", .enabled(if: OfferSignerBinary.testable))
struct OutcomesCommandTests {
    @Test("outcomes report gives the endpoint's figures as JSON or CSV; rebuild derives the redemptions again; bad options exit 2")
    func reportAndRebuild() throws {
        let env = try OutcomesEndpointTests.environment()
        #expect(OutcomesEndpointTests.sign(env).status == 200)
        #expect(OutcomesEndpointTests.period(env, id: "r1", start: env.now + 3_600, offer: true).status == 200)
        let database = env.folder.appendingPathComponent("db.sqlite").path
        let from = RFC3339.string(from: env.now - 86_400), to = RFC3339.string(from: env.now + 86_400)
        let common = ["--bundle-id", TestEnvironment.bundleId, "--offer-id", "winback", "--from", from, "--to", to, "--database", database]

        let json = try CommandLineTests.run(["outcomes", "report"] + common)
        #expect(json.status == 0, "\(json.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["signed"] as? Int == 1 && report["redemptions"] as? Int == 1 && report["matched"] as? Int == 1)
        #expect(report["revenue"] as? [String: Int] == ["USD": 4_990])

        let csv = try CommandLineTests.run(["outcomes", "report"] + common + ["--format", "csv"])
        #expect(csv.status == 0, "\(csv.errors)")
        let lines = csv.output.split(separator: "\r\n")
        #expect(lines.first == Substring(OutcomeReport.csvHeader.joined(separator: ",")))
        #expect(lines.count == 2 && lines[1].hasPrefix("com.example.app,winback,Production,"))

        try env.outcomes.deleteAllRedemptions()
        let rebuild = try CommandLineTests.run(["outcomes", "rebuild", "--database", database])
        #expect(rebuild.status == 0, "\(rebuild.errors)")
        #expect(rebuild.output.contains("redemptions 1, matched 1, unmatched 0"))
        #expect(try env.outcomes.redemptions(matching: RedemptionFilter(), afterId: 0, limit: 10).map(\.signatureNonce).count == 1)

        #expect(try CommandLineTests.run(["outcomes", "report", "--database", database]).status == 2)
        // An environment whose history the service does not keep is refused, as the endpoint refuses it.
        let sandbox = try CommandLineTests.run(["outcomes", "report"] + common + ["--environment", "Sandbox"])
        #expect(sandbox.status == 2 && sandbox.errors.contains("keeps no Sandbox history"), "\(sandbox.errors)")
        #expect(try CommandLineTests.run(["outcomes", "report"] + common + ["--environment", "Sandbox", "--environments", "Production,Sandbox"])
            .status == 0)
        #expect(try CommandLineTests.run(["outcomes", "report"] + common + ["--format", "xml"]).status == 2)
        #expect(try CommandLineTests.run(["outcomes", "report", "--bundle-id", TestEnvironment.bundleId, "--offer-id", "nope",
                                          "--database", database]).status == 1)
    }
}
