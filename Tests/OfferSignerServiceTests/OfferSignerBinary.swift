import Foundation
import Testing

/// Where `swift test` leaves the executable it builds beside the tests.
enum OfferSignerBinary {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/offer-signer")
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: url.path) }

    /// Whether the run is under continuous integration (`CI` set): there a missing
    /// prerequisite (the binary, SoftHSM2, PostgreSQL) fails the run, never skips tests.
    static var underCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// Whether the tests that run the binary are run: when it is built, and always under CI
    /// (where they then fail, and so does ``TestPrerequisiteTests``).
    static var testable: Bool { exists || underCI }
}

/// Under CI, what other suites need is there: a missing binary or SoftHSM2 fails here, by
/// name, instead of silently turning those suites off.
@Suite("Test prerequisites under CI", .enabled(if: OfferSignerBinary.underCI))
struct TestPrerequisiteTests {
    @Test("the offer-signer binary is built")
    func binary() {
        #expect(OfferSignerBinary.exists, "\(OfferSignerBinary.url.path) is missing: build it first (swift build)")
    }

    @Test("SoftHSM2 is installed")
    func softHSM() {
        #expect(SoftHSMFixture.installed, "SoftHSM2 (\(SoftHSMFixture.module), /usr/bin/softhsm2-util) is missing: make deps installs it")
    }
}
