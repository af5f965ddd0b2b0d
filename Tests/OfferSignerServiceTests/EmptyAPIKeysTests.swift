import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

@Suite("A keys file without API keys")
struct EmptyAPIKeysTests {
    @Test("loading it gives a warning; a file with API keys does not")
    func loadWarns() throws {
        let env = try TestEnvironment()
        try TestEnvironment.keysFile(apiKeys: []).write(to: URL(fileURLWithPath: env.keysPath))
        let warnings = try KeyConfiguration.load(path: env.keysPath).warnings
        #expect(warnings == ["\(env.keysPath) lists no API keys (apiKeys is empty): every route that needs one answers 401"])
        try TestEnvironment.keysFile().write(to: URL(fileURLWithPath: env.keysPath))
        #expect(try KeyConfiguration.load(path: env.keysPath).warnings.isEmpty)
    }

    @Test("the service logs the warning when it starts and when a reload (SIGHUP) takes such a file")
    func serviceWarns() throws {
        let env = try TestEnvironment()
        try TestEnvironment.keysFile(apiKeys: []).write(to: URL(fileURLWithPath: env.keysPath))
        var settings = ServiceSettings()
        settings.keys = env.keysPath
        settings.database = env.folder.appendingPathComponent("runtime.sqlite").path
        settings.listen = "127.0.0.1:0"
        settings.appleRoots = [TestAppStore.folder.appendingPathComponent("root.pem").path]
        let capture = LogCapture()
        let runtime = try ServiceRuntime(settings: settings, logger: Logger(minimumLevel: .info) { capture.append($0) })
        defer { runtime.stop() }
        func warnings() -> Int {
            capture.text.split(separator: "\n").filter { $0.contains(#""level":"warning""#) && $0.contains("lists no API keys") }.count
        }
        #expect(warnings() == 1, "at start: \(capture.text)")
        _ = runtime.reloadKeys()
        #expect(warnings() == 2, "on reload")
        try TestEnvironment.keysFile().write(to: URL(fileURLWithPath: env.keysPath))
        _ = runtime.reloadKeys()
        #expect(warnings() == 2, "a file with API keys reloads without it")
    }
}
