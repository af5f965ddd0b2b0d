import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore
import Synchronization
import Testing

@Suite("Webhooks: an event committed but undelivered when serve is killed is delivered after restart")
struct WebhookCrashTests {
    @Test("kill -9 of serve between the signature's commit and its delivery: delivered after restart, same event ID")
    func killBetweenCommitAndDelivery() throws {
        let env = try TestEnvironment()
        let path = env.folder.appendingPathComponent("serve.sqlite").path
        let accepting = Mutex(false)
        let receiver = try WebhookReceiver { _, _ in MockHTTPResponse(status: accepting.withLock { $0 } ? 200 : 503) }
        do {
            let stores = try Stores.open(.sqlite(path: path), followOfferChanges: false)
            defer { stores.close() }
            _ = try stores.offers.put(TestEnvironment.demoRule(), by: "test", at: Date())
            try stores.webhooks.put(StoredWebhook(id: "crm", url: receiver.url, events: [.offerSigned], bundleIds: nil, enabled: true,
                                                  secret: "whsec_test", createdAt: Date(), updatedAt: Date()),
                                    change: WebhookChange(webhookId: "crm", action: .created, actor: "test", at: Date(), document: nil))
        }
        let settings = [
            "OFFER_SIGNER_KEYS": env.keysPath, "OFFER_SIGNER_DATABASE": path,
            "OFFER_SIGNER_APPLE_ROOTS": TestAppStore.folder.appendingPathComponent("root.pem").path,
            "OFFER_SIGNER_LOG_LEVEL": "error", "OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE": "on",
        ]
        let first = try ServeProcess(environment: settings, logFolder: env.folder)
        let signed = TestHTTP.send(port: first.port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                                   body: #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "crash-user"}"#)
        #expect(signed.status == 200)
        // The receiver refuses the first try: the event is committed and not delivered.
        let deadline = Date().addingTimeInterval(60)
        while receiver.requests.isEmpty && Date() < deadline { usleep(20_000) }
        let firstTry = try #require(receiver.bodies.first)
        first.kill()

        accepting.withLock { $0 = true }
        let second = try ServeProcess(environment: settings, logFolder: env.folder)
        defer { second.kill() }
        // Its next try (10 s … after the first, with jitter) comes from the restarted instance.
        let later = Date().addingTimeInterval(120)
        while receiver.requests.count < 2 && Date() < later { usleep(50_000) }
        let bodies = receiver.bodies
        #expect(bodies.count == 2, "tried once before the kill, delivered once after")
        #expect(bodies.last?["id"] as? String == firstTry["id"] as? String)
        // The receiver has answered; the worker records the outcome just after: wait for it to be recorded.
        var item: [String: Any]?
        let recorded = Date().addingTimeInterval(60)
        repeat {
            let deliveries = TestHTTP.send(port: second.port, "GET", "/v1/admin/webhooks/crm/deliveries", token: TestEnvironment.tokens[.admin])
            item = (deliveries.json["items"] as? [[String: Any]])?.first
            if item?["status"] as? String == "delivered" { break }
            usleep(50_000)
        } while Date() < recorded
        #expect(item?["status"] as? String == "delivered" && item?["attempts"] as? Int == 2)
    }
}
