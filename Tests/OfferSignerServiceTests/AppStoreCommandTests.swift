import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Synchronization
import Testing

/// The settings and commands of the App Store Server API: `appstore backfill`, `appstore
/// recover`, and what `serve` starts.
@Suite("App Store Server API settings and commands")
struct AppStoreCommandTests {
    @Test("settings: off by default; URL, rate, recovery interval and unknown-user fetching from variables and flags")
    func settings() throws {
        let defaults = try ServiceSettings.resolve(arguments: [], environment: [:])
        #expect(defaults.appStoreAPIURL == nil && defaults.appStoreAPIRate == 50)
        #expect(defaults.recoverInterval == nil && !defaults.fetchUnknownUsers)
        let set = try ServiceSettings.resolve(
            arguments: ["--recover-interval", "15m", "--appstore-api-rate=12.5"],
            environment: ["OFFER_SIGNER_APPSTORE_API_URL": "http://127.0.0.1:9999", "OFFER_SIGNER_FETCH_UNKNOWN_USERS": "on",
                          "OFFER_SIGNER_RECOVER_INTERVAL": "1h"])
        #expect(set.appStoreAPIURL == "http://127.0.0.1:9999" && set.appStoreAPIRate == 12.5)
        #expect(set.recoverInterval == 900 && set.fetchUnknownUsers)
        #expect(try ServiceSettings.resolve(arguments: ["--recover-interval", "off"], environment: ["OFFER_SIGNER_RECOVER_INTERVAL": "2h"]).recoverInterval == nil)
        for (flag, value) in [("--appstore-api-url", "ftp://example.com"), ("--appstore-api-rate", "0"), ("--appstore-api-rate", "5000"),
                              ("--recover-interval", "30s"), ("--recover-interval", "soon"), ("--fetch-unknown-users", "maybe")] {
            #expect {
                try ServiceSettings.resolve(arguments: [flag, value], environment: [:])
            } throws: { error in
                (error as? SettingsError)?.description.contains(flag) == true
            }
        }
    }

    /// Runs `appstore …` in process against the harness's database, keys and mock.
    static func run(_ harness: AppStoreAPIHarness, _ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let output = Mutex<[String]>([])
        let errors = Mutex<String>("")
        let tool = AppStoreTool(
            output: { line in output.withLock { $0.append(line) } }, errors: { text in errors.withLock { $0 += text } },
            isTerminal: false, progressEvery: .seconds(3600), environment: ["OFFER_SIGNER_APPSTORE_API_URL": harness.server.baseURL],
            clock: .fixed(harness.env.now))
        let status = tool.run(arguments + ["--keys", harness.env.keysPath, "--database", harness.env.database.path,
                                           "--apple-roots", TestAppStore.folder.appendingPathComponent("root.pem").path])
        return (status, output.withLock { $0.joined(separator: "\n") }, errors.withLock { $0 })
    }

    @Test("appstore backfill: progress lines, a summary, exit 0; a rerun is a no-op; exit 1 with the failures listed")
    func backfillCommand() throws {
        let harness = try AppStoreAPIHarness()
        let ids = (0..<3).map { harness.addCustomer(user: "cli-\($0)", firstId: 6_000_000 + Int64($0) * 10)[0] }
        let file = harness.env.folder.appendingPathComponent("ids.txt")
        try (ids.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let first = Self.run(harness, ["backfill", "--transaction-ids", file.path])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.errors.contains("backfill: 3/3 done (100%)"))
        #expect(first.output.contains("fetched       3") && first.output.contains("items: 12 accepted, 3 duplicates"))
        let rerun = Self.run(harness, ["backfill", "--transaction-ids", file.path])
        #expect(rerun.status == 0 && rerun.output.contains("already done  3") && rerun.output.contains("fetched       0"))

        try "6000000\n77\nbanana\n".write(to: file, atomically: true, encoding: .utf8)
        let mixed = Self.run(harness, ["backfill", "--transaction-ids", file.path, "--concurrency", "2"])
        #expect(mixed.status == 1)
        #expect(mixed.output.contains("not found     1") && mixed.output.contains("line 3: not a transaction ID"))
        #expect(Self.run(harness, ["backfill"]).status == 2)
        #expect(Self.run(harness, ["backfill", "--transaction-ids", file.path, "--concurrency", "0"]).status == 2)
        #expect(Self.run(harness, ["backfill", "--transaction-ids", file.path, "--bundle-id", "com.other"]).status == 2)
    }

    @Test("appstore recover: a window's notifications stored, described; bad times refused")
    func recoverCommand() throws {
        let harness = try AppStoreAPIHarness()
        let now = harness.env.now
        let transaction = TestAppStore.transaction(id: "r1", user: "cli", purchased: now - 40 * 86_400, expires: now - 10 * 86_400,
                                                   signed: now - 3600)
        harness.store.add(MockNotification(signedDate: TestSignedData.ms(now - 3600), transactionId: "r1", notificationType: "EXPIRED",
                                           signedPayload: TestAppStore.notification(type: "EXPIRED", transaction: transaction, signed: now - 3600),
                                           attempts: [(TestSignedData.ms(now - 3600), "NO_RESPONSE")]))
        let result = Self.run(harness, ["recover", "--from", RFC3339.string(from: now - 86_400)])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("com.example.app Production") && result.output.contains("1 notifications, 1 new and stored"))
        #expect(Self.run(harness, ["recover"]).status == 2)
        #expect(Self.run(harness, ["recover", "--from", "yesterday"]).status == 2)
        #expect(Self.run(harness, ["recover", "--from", RFC3339.string(from: now), "--to", RFC3339.string(from: now - 60)]).status == 2)
        #expect(Self.run(harness, ["recover", "--from", RFC3339.string(from: now - 60), "--environment", "Sandbox"]).status == 2)
        #expect(Self.run(harness, ["frobnicate"]).status == 2)
    }

    @Test("serve with the settings on: the recovery job asks Apple at start and stops with the service; signing gets the unknown-user lookup")
    func serveWiring() throws {
        let harness = try AppStoreAPIHarness()
        var settings = ServiceSettings()
        settings.keys = harness.env.keysPath
        settings.database = harness.env.folder.appendingPathComponent("serve.sqlite").path
        settings.listen = "127.0.0.1:0"
        settings.appleRoots = [TestAppStore.folder.appendingPathComponent("root.pem").path]
        settings.appStoreAPIURL = harness.server.baseURL
        settings.recoverInterval = 3600
        settings.fetchUnknownUsers = true
        let runtime = try ServiceRuntime(settings: settings, logger: .silent)
        let deadline = Date() + 5
        while harness.store.requests.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(harness.store.requests.first?.endpoint == .notifications)
        #expect(runtime.unknownUserLookup?.timeout == .seconds(2))
        #expect(runtime.appStoreAPI.bundleIds == [TestEnvironment.bundleId])
        let (_, seconds) = measure { runtime.stop() }
        #expect(seconds < 2)
    }
}

/// `offer-signer appstore` as an operator runs it.
@Suite("The offer-signer appstore command", .enabled(if: OfferSignerBinary.testable))
struct AppStoreBinaryTests {
    @Test("appstore without a subcommand, or backfill without its file, exits 2 and says what is needed")
    func usage() throws {
        let bare = try CommandLineTests.run(["appstore"])
        #expect(bare.status == 2 && bare.errors.contains("appstore backfill --transaction-ids"))
        let env = try TestEnvironment()
        let missing = try CommandLineTests.run(["appstore", "backfill", "--keys", env.keysPath,
                                                "--database", env.folder.appendingPathComponent("db.sqlite").path])
        #expect(missing.status == 2 && missing.errors.contains("--transaction-ids"))
        #expect(try CommandLineTests.run(["--help"]).output.contains("appstore recover"))
    }
}
