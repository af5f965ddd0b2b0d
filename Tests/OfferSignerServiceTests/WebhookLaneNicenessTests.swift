import Foundation
@testable import OfferSignerApplication
import Testing

@Suite("Webhooks: the lanes take the CPU signing leaves")
struct WebhookLaneNicenessTests {
    let hooks = WebhookTests()

    /// The nice values of this process's threads called `name` (field 19 of each thread's `stat`).
    static func niceness(ofThreadsNamed name: String) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: end)...].split(separator: " ")  // from field 3, the state
            return fields.count > 16 ? Int(fields[16]) : nil
        }
    }

    @Test("a webhook's lane runs at the lanes' nice value, above the worker's own thread's")
    func laneIsNiced() throws {
        let env = try hooks.environment()
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, "crm", url: receiver.url)
        let worker = WebhookDeliveryWorker(store: env.webhookStore, policy: WebhookURLPolicy(allowPrivate: true), pollInterval: .milliseconds(20),
                                           metrics: env.metrics, logger: .silent)
        worker.start()
        defer { worker.stop() }
        let deadline = Date().addingTimeInterval(10)
        while Self.niceness(ofThreadsNamed: "webhook-lane").isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let own = try #require(Self.niceness(ofThreadsNamed: "webhook-worker").first)
        #expect(Self.niceness(ofThreadsNamed: "webhook-lane") == [Int(WebhookDeliveryWorker.laneNiceness)])
        #expect(own < Int(WebhookDeliveryWorker.laneNiceness))
    }
}
