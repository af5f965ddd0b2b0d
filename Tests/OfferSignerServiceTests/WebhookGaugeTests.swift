import Foundation
@testable import OfferSignerApplication
import Testing

@Suite("Webhooks: the oldest-undelivered gauge's scan")
struct WebhookGaugeTests {
    let hooks = WebhookTests()

    /// How many times a running worker (polling every 20 ms for 0.6 s) scanned the pending rows.
    func scans(gaugeInterval: Duration) throws -> Int {
        let env = try hooks.environment()
        let counting = RecordCountingWebhookStore(env.webhookStore)
        let worker = WebhookDeliveryWorker(store: counting, policy: WebhookURLPolicy(allowPrivate: true), pollInterval: .milliseconds(20),
                                           gaugeInterval: gaugeInterval, metrics: env.metrics, logger: .silent)
        worker.start()
        Thread.sleep(forTimeInterval: 0.6)
        worker.stop()
        return counting.gaugeScans.withLock { $0 }
    }

    @Test("the worker's thread polls often but scans for the gauge once per interval (5 s by default), not every poll")
    func scannedOncePerInterval() throws {
        #expect(try scans(gaugeInterval: .seconds(5)) == 1, "the first poll only")
        #expect(try scans(gaugeInterval: .milliseconds(100)) >= 3)
    }
}
