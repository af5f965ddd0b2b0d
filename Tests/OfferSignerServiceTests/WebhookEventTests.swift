import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Synchronization
import Testing

/// The events added to the first set: `offer.refused` (only for subscribed webhooks of the app,
/// committed before the refusal is answered), `experiment.started|stopped` (in the lifecycle's
/// transaction), and each webhook's own delivery lane.
@Suite("Webhooks: offer.refused, experiment.started|stopped, a lane per webhook")
struct WebhookEventTests {
    let hooks = WebhookTests()

    static func signBody(offer: String, user: String) -> String {
        #"{"productId": "\#(TestEnvironment.product)", "offerId": "\#(offer)", "userId": "\#(user)"}"#
    }

    /// The offers `winback` (anyone) and `lapsed_only` (no unknown user is eligible).
    func environment(secondApp: Bool = false) throws -> TestEnvironment {
        let env = try TestEnvironment(secondApp: secondApp)
        try env.putOffer(TestEnvironment.demoRule())
        try env.putOffer(TestEnvironment.demoRule("lapsed_only", eligibility: EligibilityCriteria(requireLapsed: true)))
        return env
    }

    func outboxRows(_ env: TestEnvironment) throws -> Int64 {
        try env.database.read { db in try db.scalar("SELECT COUNT(*) FROM webhook_outbox") } ?? -1
    }

    /// What the receiver got once every due event was delivered (the worker's clock past the
    /// environment's fixed one, a year ahead, which refusals and experiments are queued at).
    func delivered(_ env: TestEnvironment, _ receiver: WebhookReceiver) -> [[String: Any]] {
        let clock = MovableClock()
        clock.advance(400 * 86400)
        let worker = hooks.worker(env, clock: clock)
        while worker.runRound() > 0 {}
        return receiver.bodies
    }

    @Test("a refused offer is announced with its code and every failed criterion; no signature, proof or secret in it")
    func refusedNotEligible() throws {
        let env = try environment()
        let receiver = try WebhookReceiver()
        let secret = try hooks.create(env, url: receiver.url, events: ["offer.refused"])
        let response = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "lapsed_only", user: "user-1"))
        #expect(response.status == 403 && response.code == "not_eligible")
        let event = try #require(delivered(env, receiver).first)
        #expect(event["type"] as? String == "offer.refused" && event["bundleId"] as? String == TestEnvironment.bundleId)
        #expect(event["environment"] as? String == "Production")
        let data = try #require(event["data"] as? [String: Any])
        #expect(data["code"] as? String == "not_eligible" && data["offerId"] as? String == "lapsed_only")
        #expect(data["userId"] as? String == "user-1" && data["productId"] as? String == TestEnvironment.product)
        #expect(data["placementId"] is NSNull && data["experimentId"] is NSNull && data["source"] as? String == "api")
        let reasons = try #require(data["reasons"] as? [[String: Any]])
        #expect(reasons.map { $0["criterion"] as? String } == ["requireLapsed"] && reasons[0]["offerId"] as? String == "lapsed_only")
        #expect(Set(data.keys) == ["code", "productId", "offerId", "placementId", "experimentId", "armId", "userId", "transactionId",
                                   "reasons", "source", "apiKeyName", "requestId"])
        let body = String(decoding: receiver.requests[0].body, as: UTF8.self)
        #expect(!body.contains(secret) && !body.contains("signature\""))
    }

    @Test("not announced: an unknown app, offer or product; a webhook of another app or type takes none")
    func notCounted() throws {
        let env = try environment(secondApp: true)
        _ = try hooks.create(env, "other-app", url: "https://127.0.0.1/hook", events: ["offer.refused"])
        #expect(env.send("PUT", "/v1/admin/webhooks/other-app", role: .admin, json: """
            {"url": "https://127.0.0.1/hook", "events": ["offer.refused"], "bundleIds": ["\(TestEnvironment.otherBundleId)"]}
            """).status == 200)
        _ = try hooks.create(env, "signed-only", url: "https://127.0.0.1/hook", events: ["offer.signed"])
        let refused = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "lapsed_only", user: "user-1")
            .replacingOccurrences(of: "{", with: #"{"bundleId": "\#(TestEnvironment.bundleId)", "#))
        #expect(refused.status == 403)
        #expect(try outboxRows(env) == 0, "no webhook of this app takes offer.refused")

        _ = try hooks.create(env, "refusals", url: "https://127.0.0.1/hook", events: ["offer.refused"])
        let before = try outboxRows(env)
        let unknownOffer = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "nope", user: "user-1")
            .replacingOccurrences(of: "{", with: #"{"bundleId": "\#(TestEnvironment.bundleId)", "#))
        #expect(unknownOffer.status == 404)
        let otherProduct = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "lapsed_only", user: "user-1")
            .replacingOccurrences(of: TestEnvironment.product, with: "com.example.app.elsewhere")
            .replacingOccurrences(of: "{", with: #"{"bundleId": "\#(TestEnvironment.bundleId)", "#))
        #expect(otherProduct.status == 404)
        let unknownApp = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "lapsed_only", user: "user-1")
            .replacingOccurrences(of: "{", with: #"{"bundleId": "com.example.unknown", "#))
        #expect(unknownApp.status == 404)
        #expect(try outboxRows(env) == before, "a caller's mistake is not announced")
    }

    @Test("a refusal is answered only once its event is committed: with the outbox unwritable it is the store's failure, not 403")
    func refusalEventCommittedFirst() throws {
        let env = try environment()
        _ = try hooks.create(env, url: "https://127.0.0.1/hook", events: ["offer.refused"])
        try env.database.write { db in try db.execute("CREATE TRIGGER no_outbox BEFORE INSERT ON webhook_outbox BEGIN SELECT RAISE(ABORT, 'full'); END") }
        let response = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "lapsed_only", user: "user-1"))
        #expect(response.status == 500 && response.code == "internal_error", "\(response.text)")
        let signed = env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "winback", user: "user-1"))
        #expect(signed.status == 200, "an offer.signed-less signature does not touch the outbox")
    }

    @Test("over the quota: quota_exceeded after the user's offer.signed, in order")
    func quota() throws {
        let env = try environment()
        try env.putOffer(TestEnvironment.demoRule("once", limits: OfferLimits(maxSignaturesPerUserPerDay: 1)))
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url, events: ["offer.signed", "offer.refused"])
        #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "once", user: "user-1")).status == 200)
        #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "once", user: "user-1")).status == 429)
        let events = delivered(env, receiver)
        #expect(events.map { $0["type"] as? String } == ["offer.signed", "offer.refused"])
        let data = try #require(events.last?["data"] as? [String: Any])
        #expect(data["code"] as? String == "quota_exceeded" && data["offerId"] as? String == "once")
        let reason = try #require((data["reasons"] as? [[String: Any]])?.first)
        #expect(reason["criterion"] as? String == "maxSignaturesPerUserPerDay" && reason["required"] as? Int == 1)
    }

    @Test("a placement: no offer eligible lists each offer's reasons; an experiment's no-offer arm is experiment_control")
    func placements() throws {
        let env = try PlacementExperimentTests.running(control: 1, half: 0)
        try env.putOffer(TestEnvironment.demoRule("lapsed_too", eligibility: EligibilityCriteria(requireLapsed: true)))
        #expect(env.send("PUT", "/v1/admin/placements/other_flow", role: .marketing, json: #"{"offerIds": ["lapsed_only", "lapsed_too"]}"#).status == 201)
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url, events: ["offer.refused"])
        #expect(PlacementSignTests.ask(env, placement: "other_flow", user: "user-1").status == 403)
        #expect(PlacementExperimentTests.ask(env, "user-2").code == "experiment_control")
        #expect(PlacementSignTests.ask(env, placement: "nowhere", user: "user-3").status == 404)
        let events = delivered(env, receiver)
        #expect(events.count == 2, "a placement that does not exist is not announced")
        let none = try #require(events.first?["data"] as? [String: Any])
        #expect(none["code"] as? String == "not_eligible" && none["placementId"] as? String == "other_flow" && none["offerId"] is NSNull)
        #expect((none["reasons"] as? [[String: Any]])?.map { $0["offerId"] as? String } == ["lapsed_only", "lapsed_too"])
        let control = try #require(events.last?["data"] as? [String: Any])
        #expect(control["code"] as? String == "experiment_control" && control["placementId"] as? String == "cancel_flow")
        #expect(control["experimentId"] as? String == "exp1" && control["armId"] as? String == "control" && control["userId"] as? String == "user-2")
    }

    @Test("a user held out of a placement's offer (no experiment) is announced naming that offer, with the holdout's reason")
    func placementHoldoutNamesItsOffer() throws {
        let env = try environment()
        var held = TestEnvironment.demoRule("held")
        held.holdoutPercent = 50
        try env.putOffer(held)
        #expect(env.send("PUT", "/v1/admin/placements/p", role: .marketing, json: #"{"offerIds": ["lapsed_only", "held", "winback"]}"#).status == 201)
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url, events: ["offer.refused"])
        let heldOut = try #require((0..<200).map { "user-\($0)" }.first {
            OfferHoldout.isHeldOut(bundleId: TestEnvironment.bundleId, offerId: "held", user: $0, percent: 50)
        })
        let refused = PlacementSignTests.ask(env, placement: "p", user: heldOut)
        #expect(refused.status == 403 && refused.code == "not_eligible", "\(refused.text)")
        let events = delivered(env, receiver)
        #expect(events.count == 1)
        let data = try #require(events.first?["data"] as? [String: Any])
        #expect(data["code"] as? String == "not_eligible" && data["placementId"] as? String == "p" && data["userId"] as? String == heldOut)
        #expect(data["offerId"] as? String == "held", "the offer the user is held out of: \(data)")
        #expect(data["experimentId"] is NSNull && data["armId"] is NSNull)
        let reasons = try #require(data["reasons"] as? [[String: Any]])
        #expect(reasons.map { $0["criterion"] as? String } == ["holdout"] && reasons.first?["offerId"] as? String == "held")
    }

    @Test("experiment.started and experiment.stopped (with the winner), in the lifecycle's transaction; nothing for a weight change or a refused stop")
    func experiments() throws {
        let env = try ExperimentAdminTests.environment()
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url, events: ["experiment.started", "experiment.stopped"])
        #expect(ExperimentAdminTests.put(env, "exp1").status == 201)
        #expect(ExperimentAdminTests.action(env, "exp1", "start").status == 200)
        #expect(ExperimentAdminTests.put(env, "exp1", ExperimentAdminTests.body(arms: PlacementExperimentTests.arms(control: 1, half: 3))).status == 200)
        #expect(ExperimentAdminTests.action(env, "exp1", "stop", json: #"{"winner": "nobody"}"#).status == 400)
        #expect(try outboxRows(env) == 1, "the refused stop wrote nothing")
        #expect(ExperimentAdminTests.action(env, "exp1", "stop", json: #"{"winner": "half"}"#).status == 200)
        let events = delivered(env, receiver)
        #expect(events.map { $0["type"] as? String } == ["experiment.started", "experiment.stopped"])
        let started = try #require(events.first?["data"] as? [String: Any])
        #expect(started["experimentId"] as? String == "exp1" && started["placementId"] as? String == "cancel_flow")
        #expect(started["winner"] is NSNull && started["stoppedAt"] is NSNull && started["startedAt"] is String)
        #expect((started["arms"] as? [[String: Any]])?.map { $0["armId"] as? String } == ["control", "half"])
        let stopped = try #require(events.last?["data"] as? [String: Any])
        #expect(stopped["winner"] as? String == "half" && stopped["winnerOfferId"] as? String == "half" && stopped["stoppedAt"] is String)
        #expect(stopped["actor"] as? String == "marketing-key" && events.last?["bundleId"] as? String == TestEnvironment.bundleId)
    }

    @Test("a receiver that does not answer holds up only its own webhook's deliveries: another webhook's arrive meanwhile")
    func slowReceiverHoldsOnlyItsLane() throws {
        let env = try environment()
        let release = DispatchSemaphore(value: 0)
        let slow = try WebhookReceiver { _, _ in
            _ = release.wait(timeout: .now() + 90)
            return MockHTTPResponse(status: 204)
        }
        let fast = try WebhookReceiver()
        // "a-slow" sorts first: its delivery is the older row of the outbox.
        _ = try hooks.create(env, "a-slow", url: slow.url)
        _ = try hooks.create(env, "b-fast", url: fast.url)
        for user in ["user-1", "user-2"] {
            #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "winback", user: user)).status == 200)
        }
        let worker = WebhookDeliveryWorker(store: env.webhookStore, policy: WebhookURLPolicy(allowPrivate: true), schedule: WebhookTests.fast,
                                           timeout: .seconds(120), pollInterval: .milliseconds(50), metrics: env.metrics, logger: .silent)
        worker.start()
        defer {
            release.signal()
            release.signal()
            worker.stop()
        }
        let deadline = Date().addingTimeInterval(60)
        while fast.requests.count < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(fast.requests.count == 2, "the other webhook's deliveries arrived while the slow receiver held its first")
        #expect(slow.requests.count == 1, "the slow webhook's second waits behind its first")
    }

    @Test("every event's data has exactly the members its openapi.yaml schema requires (offer.signed, offer.refused, experiment.*)")
    func documentedShapes() throws {
        let env = try ExperimentAdminTests.environment()
        try env.putOffer(TestEnvironment.demoRule("lapsed_only", eligibility: EligibilityCriteria(requireLapsed: true)))
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url, events: ["offer.signed", "offer.refused", "experiment.started", "experiment.stopped"])
        #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "half", user: "user-1")).status == 200)
        #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "lapsed_only", user: "user-1")).status == 403)
        #expect(ExperimentAdminTests.put(env, "exp1").status == 201)
        #expect(ExperimentAdminTests.action(env, "exp1", "start").status == 200)
        #expect(ExperimentAdminTests.action(env, "exp1", "stop").status == 200)
        let events = delivered(env, receiver)
        let schemas = ["offer.signed": "WebhookOfferSigned", "offer.refused": "WebhookOfferRefused",
                       "experiment.started": "WebhookExperiment", "experiment.stopped": "WebhookExperiment"]
        #expect(Set(events.compactMap { $0["type"] as? String }) == Set(schemas.keys))
        let openapi = try String(contentsOf: AlertRuleTests.repository.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let types = try #require(Self.schemaLine(openapi, schema: "WebhookEventType", key: "enum"))
        for event in events {
            let type = try #require(event["type"] as? String)
            #expect(types.contains(type), "\(type) in WebhookEventType's enum")
            let required = try #require(Self.schemaLine(openapi, schema: schemas[type]!, key: "required"), "\(type)'s schema")
            let data = try #require(event["data"] as? [String: Any])
            #expect(Set(data.keys).subtracting(["allowIntroductoryOffer"]) == Set(required), "\(type): \(data.keys.sorted()) against \(required)")
        }
    }

    /// The list `key: [a, b, …]` of the components schema `schema` in openapi.yaml.
    static func schemaLine(_ openapi: String, schema: String, key: String) -> [String]? {
        guard let start = openapi.range(of: "\n    \(schema):\n") else { return nil }
        for line in openapi[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("    "), !line.hasPrefix("     ") { return nil }  // the next schema
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\(key): [") else { continue }
            return trimmed.dropFirst(key.count + 3).dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    @Test("the README's receiver example in Python accepts a real delivery (both secrets during a rotation) and refuses a changed body, another secret, a stale time, a malformed header")
    func readmeReceiver() throws {
        let readme = try String(contentsOf: AlertRuleTests.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "**Receiving.**"))
        let code = try #require(readme[section.upperBound...].components(separatedBy: "```python\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let env = try environment()
        let receiver = try WebhookReceiver()
        let old = try hooks.create(env, url: receiver.url)
        let new = try #require(env.send("POST", "/v1/admin/webhooks/crm/rotate-secret", role: .admin).json["secret"] as? String)
        #expect(env.send("POST", "/v1/offers/sign", json: Self.signBody(offer: "winback", user: "user-1")).status == 200)
        #expect(hooks.worker(env, clock: MovableClock()).runRound() == 1)
        let request = try #require(receiver.requests.first)
        let header = try #require(request.header("Offer-Signer-Signature"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try request.body.write(to: folder.appendingPathComponent("body"))
        let script = code + """

            import sys
            body = open(sys.argv[1], "rb").read()
            cases = [(sys.argv[2], sys.argv[3], body), (sys.argv[4], sys.argv[3], body), (sys.argv[2], sys.argv[3], body + b" "),
                     ("whsec_other", sys.argv[3], body), (sys.argv[2], sys.argv[5], body),
                     (sys.argv[2], "v1=00", body), (sys.argv[2], "garbage", body), (sys.argv[2], "t=x²," + sys.argv[3].split(",", 1)[1], body)]
            print(" ".join(str(verify(secret, header, b)) for secret, header, b in cases))
            """
        try script.write(to: folder.appendingPathComponent("receiver.py"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", folder.appendingPathComponent("receiver.py").path, folder.appendingPathComponent("body").path,
                             new, header, old, WebhookSignature.header(body: [UInt8](request.body), timestamp: 1_000_000_000, secrets: [new])]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == "True True False False False False False False")
    }
}
