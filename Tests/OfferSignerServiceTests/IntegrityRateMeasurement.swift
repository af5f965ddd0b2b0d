import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// How fast an integrity walk goes on a large log, with and without signature checks. A
/// measurement, not a check: run with OFFER_SIGNER_MEASURE=RECORDS (e.g. 100000).
@Suite("Integrity walk rate", .enabled(if: ProcessInfo.processInfo.environment["OFFER_SIGNER_MEASURE"] != nil))
struct IntegrityRateMeasurement {
    @Test("walk a large log, then check every signature; print the rates")
    func measure() throws {
        let count = Int(ProcessInfo.processInfo.environment["OFFER_SIGNER_MEASURE"] ?? "") ?? 100_000
        let env = try TestEnvironment()
        let app = try #require(env.keyRing.current.apps[TestEnvironment.bundleId])
        let records = try ChainForgery.signedRecords(count, signer: app.signer, bundleId: app.bundleId, productId: TestEnvironment.product)
        try ChainForgery.append(records, to: env.database)
        let check = IntegrityCheck(signatureKeys: env.keyRing.current)
        for (name, run) in [("hash chain", IntegrityCheck()), ("hash chain + signatures", check)] {
            let started = ContinuousClock.now
            let outcome = try run.run(env.signatureLog)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            #expect(outcome.report.ok && outcome.report.records == count)
            print("MEASURE \(name): \(count) records in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) records/s")
        }
    }
}
