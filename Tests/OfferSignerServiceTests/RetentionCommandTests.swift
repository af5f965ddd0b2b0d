import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Synchronization
import Testing

/// `offer-signer retention …` against the mock of Apple's Retention Messaging API.
@Suite("offer-signer retention")
struct RetentionCommandTests {
    static func run(_ harness: AppStoreAPIHarness, _ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let output = Mutex<[String]>([])
        let errors = Mutex<String>("")
        let tool = RetentionTool(output: { line in output.withLock { $0.append(line) } }, errors: { text in errors.withLock { $0 += text } },
                                 environment: ["OFFER_SIGNER_APPSTORE_API_URL": harness.server.baseURL], actor: "cli:tester",
                                 clock: .fixed(harness.env.now))
        let status = tool.run(arguments + ["--keys", harness.env.keysPath, "--database", harness.env.database.path,
                                           "--apple-roots", TestAppStore.folder.appendingPathComponent("root.pem").path])
        return (status, output.withLock { $0.joined(separator: "\n") }, errors.withLock { $0 })
    }

    @Test("an environment the service does not accept is refused (exit 2) before anything is sent, as HTTP refuses it",
          arguments: ["Sandbox", "Staging", "production"])
    func environmentNotAccepted(_ environment: String) throws {
        let harness = try AppStoreAPIHarness()
        let listed = Self.run(harness, ["messages", "list", "--environment", environment])
        #expect(listed.status == 2 && listed.errors.contains("--environment takes an accepted environment (Production)"), "\(listed.errors)")
        #expect(harness.store.requests.isEmpty)
    }

    @Test("messages, images, defaults, the real-time URL and the performance test from the command line; refusals exit 2 before sending, Apple's exit 1")
    func commands() throws {
        let harness = try AppStoreAPIHarness()
        let message = RetentionMessagingTests.message
        let file = harness.env.folder.appendingPathComponent("message.json")
        try #"{"header": "Before you go", "body": "Keep your library in sync."}"#.write(to: file, atomically: true, encoding: .utf8)
        let upload = Self.run(harness, ["messages", "upload", "--message-id", message, "--file", file.path])
        #expect(upload.status == 0 && upload.output == #"{"uploaded":"\#(message)"}"#, "\(upload.errors)")
        #expect(harness.store.messaging.messageState(message) == "PENDING")
        let list = Self.run(harness, ["messages", "list"])
        #expect(list.status == 0 && list.output.contains(#""state":"PENDING""#) && list.output.contains("Before you go"))

        try #"{"header": "\#(String(repeating: "h", count: 67))", "body": "b"}"#.write(to: file, atomically: true, encoding: .utf8)
        let before = harness.store.requests.count
        let long = Self.run(harness, ["messages", "upload", "--message-id", RetentionMessagingTests.other, "--file", file.path])
        #expect(long.status == 2 && long.errors.contains("at most 66") && harness.store.requests.count == before)

        let png = harness.env.folder.appendingPathComponent("bullet.png")
        try Data(RetentionMessagingTests.png(width: 1024, height: 1024)).write(to: png)
        let image = Self.run(harness, ["images", "upload", "--image-id", RetentionMessagingTests.bullet, "--file", png.path,
                                       "--image-size", "BULLET_POINT"])
        #expect(image.status == 0 && harness.store.messaging.imageSize(RetentionMessagingTests.bullet) == "BULLET_POINT", "\(image.errors)")

        let notApproved = Self.run(harness, ["defaults", "set", "--product-id", "pro_monthly", "--locale", "en-US", "--message-id", message])
        #expect(notApproved.status == 1 && notApproved.errors.contains("4030017"))
        harness.store.messaging.setMessageState(message, "APPROVED")
        #expect(Self.run(harness, ["defaults", "set", "--product-id", "pro_monthly", "--locale", "en-US", "--message-id", message]).status == 0)
        #expect(Self.run(harness, ["defaults", "get", "--product-id", "pro_monthly", "--locale", "en-US"]).output.contains(message))

        let url = Self.run(harness, ["realtime-url", "set", "--url", "https://signer.example.com/v1/retention/appstore"])
        #expect(url.status == 1 && url.errors.contains("4030026"))
        let sandboxOnly = Self.run(harness, ["performance-test", "start", "--original-transaction-id", "2000000123456789"])
        #expect(sandboxOnly.status == 1 && harness.store.messaging.realtimeURL == nil, "Sandbox by default: not run in Production")
        let started = Self.run(harness, ["performance-test", "start", "--original-transaction-id", "2000000123456789",
                                         "--environment", "Production"])
        #expect(started.status == 0, "\(started.errors)")
        let requestId = try #require((try JSONSerialization.jsonObject(with: Data(started.output.utf8)) as? [String: Any])?["requestId"] as? String)
        #expect(Self.run(harness, ["performance-test", "result", "--request-id", requestId, "--environment", "Production"]).output
            .contains(#""result":"PASS""#))
        #expect(Self.run(harness, ["realtime-url", "set", "--url", "https://signer.example.com/v1/retention/appstore"]).status == 0)

        let missing = Self.run(harness, ["messages", "delete", "--message-id", RetentionMessagingTests.other])
        #expect(missing.status == 1 && missing.errors.contains("4040015"))
        #expect(Self.run(harness, ["messages", "shout"]).status == 2)
        #expect(Self.run(harness, ["messages", "delete"]).status == 2)

        let changes = try harness.env.rules.changes(RetentionMessagingRecord.self, bundleId: nil, ruleId: nil, afterId: 0, limit: 100)
        #expect(changes.count == 5 && changes.allSatisfy { $0.apiKeyName == "cli:tester" }, "\(changes.map(\.ruleId))")
    }
}
