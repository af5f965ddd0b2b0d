import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Synchronization
import Testing

/// A resolver whose answers the test sets (for DNS rebinding).
final class StubResolver: HostResolver {
    let answers = Mutex<[String: [String]]>([:])
    func set(_ host: String, _ addresses: [String]) { answers.withLock { $0[host] = addresses } }
    func addresses(of host: String) throws(HostResolutionFailure) -> [String] {
        guard let found = answers.withLock({ $0[host] }) else { throw HostResolutionFailure(host: host, reason: "unknown to the stub") }
        return found
    }
}

/// A clock the test moves.
final class MovableClock: Sendable {
    private let date = Mutex(Date())
    var wallClock: WallClock { WallClock { [self] in date.withLock { $0 } } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A local HTTP receiver recording every delivery, answering as `answer` says (given the
/// request and how many came so far, this one included).
final class WebhookReceiver: Sendable {
    final class Log: Sendable {
        let received = Mutex<[MockHTTPRequest]>([])
    }

    let log = Log()
    let server: MockHTTPServer

    init(answer: @escaping @Sendable (MockHTTPRequest, Int) -> MockHTTPResponse = { _, _ in MockHTTPResponse(status: 204) }) throws {
        let log = self.log
        server = try MockHTTPServer { request in
            let count = log.received.withLock { list in
                list.append(request)
                return list.count
            }
            return answer(request, count)
        }
    }

    var requests: [MockHTTPRequest] { log.received.withLock { $0 } }
    var url: String { server.baseURL + "/hook" }
    var bodies: [[String: Any]] {
        requests.map { (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any]) ?? [:] }
    }
}

@Suite("Webhooks: admin API, outbox and signed deliveries to a real receiver")
struct WebhookTests {
    static let signBody = #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "USER"}"#
    static let fast = WebhookRetrySchedule(firstDelay: .seconds(1), maxDelay: .seconds(4), giveUpAfter: .seconds(10), lease: .seconds(30))

    func environment() throws -> TestEnvironment {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        return env
    }

    func worker(_ env: TestEnvironment, clock: MovableClock, allowPrivate: Bool = true, resolver: any HostResolver = SystemHostResolver(),
                timeout: Duration = .seconds(10)) -> WebhookDeliveryWorker {
        WebhookDeliveryWorker(store: env.webhookStore, policy: WebhookURLPolicy(allowPrivate: allowPrivate, resolver: resolver),
                              schedule: Self.fast, timeout: timeout, clock: clock.wallClock, metrics: env.metrics, logger: .silent)
    }

    /// Creates the webhook through the admin API; its secret.
    func create(_ env: TestEnvironment, _ id: String = "crm", url: String, events: [String] = ["offer.signed"]) throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["url": url, "events": events])
        let response = env.send("PUT", "/v1/admin/webhooks/\(id)", role: .admin, json: String(decoding: body, as: UTF8.self))
        #expect(response.status == 201, "\(response.json)")
        return try #require(response.json["secret"] as? String)
    }

    func sign(_ env: TestEnvironment, user: String) {
        let response = env.send("POST", "/v1/offers/sign", json: Self.signBody.replacingOccurrences(of: "USER", with: user))
        #expect(response.status == 200)
    }

    @Test("PUT shows the secret once, GET its last four; a second PUT keeps it; list, changes with who made them, DELETE")
    func administration() throws {
        let env = try environment()
        let secret = try create(env, url: "https://127.0.0.1/hook", events: ["offer.signed", "consent.rescinded"])
        #expect(secret.hasPrefix("whsec_") && secret.count > 40)
        let read = env.send("GET", "/v1/admin/webhooks/crm", role: .admin)
        #expect(read.status == 200 && read.json["secret"] == nil && read.json["secretLast4"] as? String == String(secret.suffix(4)))
        #expect(read.json["events"] as? [String] == ["offer.signed", "consent.rescinded"] && read.json["enabled"] as? Bool == true)
        #expect(!read.text.contains(secret))
        let replaced = env.send("PUT", "/v1/admin/webhooks/crm", role: .admin,
                                json: #"{"url": "https://127.0.0.1/other", "events": ["offer.signed"], "enabled": false}"#)
        #expect(replaced.status == 200 && replaced.json["secret"] == nil && replaced.json["secretLast4"] as? String == String(secret.suffix(4)))
        let list = env.send("GET", "/v1/admin/webhooks", role: .admin)
        #expect((list.json["webhooks"] as? [[String: Any]])?.map { $0["id"] as? String } == ["crm"])
        let rotated = env.send("POST", "/v1/admin/webhooks/crm/rotate-secret", role: .admin)
        let newSecret = try #require(rotated.json["secret"] as? String)
        #expect(newSecret != secret && rotated.json["previousSecretExpiresAt"] as? String == "2027-01-16T08:00:00Z")
        let changes = env.send("GET", "/v1/admin/webhooks/crm/changes", role: .admin)
        let items = try #require(changes.json["items"] as? [[String: Any]])
        #expect(items.map { $0["action"] as? String } == ["created", "updated", "secret-rotated"])
        #expect(items.allSatisfy { $0["actor"] as? String == "admin-key" })
        #expect(!changes.text.contains(secret) && !changes.text.contains(newSecret), "no secret in the audit trail")
        #expect(env.send("DELETE", "/v1/admin/webhooks/crm", role: .admin).status == 204)
        let gone = env.send("GET", "/v1/admin/webhooks/crm", role: .admin)
        #expect(gone.status == 404 && gone.code == "not_found")
        #expect(env.send("DELETE", "/v1/admin/webhooks/crm", role: .admin).status == 404)
    }

    @Test("a definition that cannot be right is refused naming each fault")
    func invalidDefinitions() throws {
        let env = try environment()
        let response = env.send("PUT", "/v1/admin/webhooks/crm", role: .admin,
                                json: #"{"url": "https://127.0.0.1/", "events": ["offer.signed", "offer.exploded", "offer.signed"], "bundleIds": ["com.unknown"]}"#)
        #expect(response.status == 400 && response.code == "invalid_request")
        let errors = response.json["errors"] as? [String] ?? []
        #expect(errors.count == 3 && errors[0].contains("offer.exploded") && errors[1].contains("twice") && errors[2].contains("com.unknown"))
        #expect(env.send("PUT", "/v1/admin/webhooks/crm", role: .admin, json: #"{"url": "https://127.0.0.1/", "events": []}"#).status == 400)
        #expect(env.send("PUT", "/v1/admin/webhooks/crm", role: .admin,
                         json: #"{"url": "https://127.0.0.1/", "events": ["offer.signed"], "secret": "mine"}"#).status == 400)
    }

    @Test("SSRF at save: https only (http to loopback only), no private, loopback, link-local or metadata address unless allowed",
          arguments: [
              ("https://10.0.0.7/hook", "private"), ("https://192.168.1.10/hook", "private"), ("https://172.20.0.1/hook", "private"),
              ("https://169.254.169.254/latest/meta-data", "metadata"), ("https://169.254.10.1/", "link-local"),
              ("https://127.0.0.1/hook", "loopback"), ("https://[::1]/hook", "loopback"), ("https://[fd00:ec2::254]/", "private"),
              ("https://[::ffff:10.0.0.1]/", "private"), ("http://93.184.216.34/hook", "plain http"), ("ftp://93.184.216.34/", "https"),
              ("https://user:pass@93.184.216.34/", "user name"), ("https://internal.example.test/", "private"),
              ("https://nowhere.example.test/", "cannot be resolved"),
          ])
    func ssrfAtSave(url: String, reason: String) throws {
        let env = try environment()
        let resolver = StubResolver()
        resolver.set("internal.example.test", ["93.184.216.34", "10.1.2.3"])
        resolver.set("public.example.test", ["93.184.216.34"])
        env.webhookPolicy = WebhookURLPolicy(allowPrivate: false, resolver: resolver)
        let body = try JSONSerialization.data(withJSONObject: ["url": url, "events": ["offer.signed"]])
        let response = env.send("PUT", "/v1/admin/webhooks/w", role: .admin, json: String(decoding: body, as: UTF8.self))
        #expect(response.status == 400 && response.code == "webhook_url_refused", "\(url): \(response.text)")
        #expect((response.json["detail"] as? String)?.contains(reason) == true, "\(url): \(response.text)")
        let accepted = env.send("PUT", "/v1/admin/webhooks/w", role: .admin,
                                json: #"{"url": "https://public.example.test/hook", "events": ["offer.signed"]}"#)
        #expect(accepted.status == 201)
    }

    @Test("a signed offer is delivered once with a valid signature of its body; the event has no signature; metrics count it")
    func delivery() throws {
        let env = try environment()
        let receiver = try WebhookReceiver()
        let secret = try create(env, url: receiver.url)
        sign(env, user: "user-1")
        let clock = MovableClock()
        #expect(worker(env, clock: clock).runRound() == 1)
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST" && request.path == "/hook" && request.contentType == "application/json")
        let header = try #require(request.header("Offer-Signer-Signature"))
        #expect(header.hasPrefix("t=") && header.components(separatedBy: "v1=").count == 2)
        if case .failure(let failure) = WebhookSignature.verify(header: header, body: [UInt8](request.body), secret: secret, now: Date()) {
            Issue.record("the signature does not verify: \(failure)")
        }
        #expect(WebhookSignature.verify(header: header, body: [UInt8](request.body) + [0x20], secret: secret) == .failure(.mismatch))
        let event = try #require(receiver.bodies.first)
        #expect(event["type"] as? String == "offer.signed" && event["bundleId"] as? String == TestEnvironment.bundleId)
        #expect((event["data"] as? [String: Any])?["userId"] as? String == "user-1")
        #expect((event["data"] as? [String: Any])?["signature"] == nil && !String(decoding: request.body, as: UTF8.self).contains("MEU"))
        #expect(worker(env, clock: clock).runRound() == 0, "delivered once")
        let deliveries = env.send("GET", "/v1/admin/webhooks/crm/deliveries", role: .admin)
        let item = try #require((deliveries.json["items"] as? [[String: Any]])?.first)
        #expect(item["status"] as? String == "delivered" && item["attempts"] as? Int == 1 && item["lastStatusCode"] as? Int == 204)
        #expect(item["eventId"] as? String == event["id"] as? String)
        let metrics = env.send("GET", "/metrics", role: nil).text
        #expect(metrics.contains(#"offer_signer_webhook_deliveries_total{result="delivered"} 1"#))
        #expect(metrics.contains(#"offer_signer_webhook_deliveries_total{result="failed"} 0"#))
        #expect(metrics.contains("offer_signer_webhook_dead_letters_total 0"))
        #expect(metrics.contains("offer_signer_webhook_oldest_undelivered_seconds 0"))
    }

    @Test("after a 500 and after a timeout the delivery is tried again later, with its answer kept, and then delivered")
    func retries() throws {
        let env = try environment()
        let receiver = try WebhookReceiver { _, count in
            switch count {
            case 1: MockHTTPResponse(status: 500, body: Data(("overloaded " + String(repeating: "x", count: 300)).utf8))
            case 2: MockHTTPResponse(status: 200, delay: .seconds(4))  // past the worker's 1 s timeout
            default: MockHTTPResponse(status: 200)
            }
        }
        _ = try create(env, url: receiver.url)
        sign(env, user: "user-1")
        let clock = MovableClock()
        let worker = worker(env, clock: clock, timeout: .seconds(1))
        #expect(worker.runRound() == 1)
        var item = try #require(env.webhookStore.deliveries(webhookId: "crm", state: nil, beforeId: nil, limit: 1).first)
        #expect(item.state == .pending && item.attempts == 1 && item.lastStatus == 500 && item.lastAnswer?.utf8.count == 200)
        #expect(worker.runRound() == 0, "not before its next try")
        clock.advance(1.3)
        #expect(worker.runRound() == 1)
        item = try #require(env.webhookStore.deliveries(webhookId: "crm", state: nil, beforeId: nil, limit: 1).first)
        #expect(item.state == .pending && item.attempts == 2 && item.lastStatus == nil && item.lastError?.contains("timeout") == true)
        clock.advance(2.5)
        #expect(worker.runRound() == 1)
        item = try #require(env.webhookStore.deliveries(webhookId: "crm", state: nil, beforeId: nil, limit: 1).first)
        #expect(item.state == .delivered && item.attempts == 3 && item.lastStatus == 200)
        #expect(env.metrics.render().contains(#"offer_signer_webhook_deliveries_total{result="failed"} 2"#))
    }

    @Test("a delivery failing past its window is dead-lettered, counted, and can be retried by an administrator")
    func deadLetter() throws {
        let env = try environment()
        let failing = Mutex(true)
        let receiver = try WebhookReceiver { _, _ in MockHTTPResponse(status: failing.withLock { $0 } ? 503 : 200) }
        _ = try create(env, url: receiver.url)
        sign(env, user: "user-1")
        let clock = MovableClock()
        let worker = worker(env, clock: clock)
        var rounds = 0
        while try env.webhookStore.deliveries(webhookId: "crm", state: .dead, beforeId: nil, limit: 1).isEmpty, rounds < 50 {
            worker.runRound()
            clock.advance(5)
            rounds += 1
        }
        let dead = try #require(env.webhookStore.deliveries(webhookId: "crm", state: .dead, beforeId: nil, limit: 1).first)
        #expect(dead.attempts >= 2 && dead.lastStatus == 503)
        #expect(env.metrics.render().contains("offer_signer_webhook_dead_letters_total 1"))
        let before = receiver.requests.count
        worker.runRound()
        #expect(receiver.requests.count == before, "a dead letter is not tried again by itself")
        failing.withLock { $0 = false }
        #expect(env.send("POST", "/v1/admin/webhooks/crm/deliveries/\(dead.eventId)/retry", role: .admin).status == 202)
        #expect(env.send("POST", "/v1/admin/webhooks/crm/deliveries/no-such-event/retry", role: .admin).status == 404)
        clock.advance(400 * 86400)  // the admin API runs on the environment's fixed clock, a year ahead
        #expect(worker.runRound() == 1)
        #expect(try env.webhookStore.deliveries(webhookId: "crm", state: .delivered, beforeId: nil, limit: 1).count == 1)
    }

    @Test("a user's later event waits for the earlier one that failed; another user's is not held up")
    func orderPerUser() throws {
        let env = try environment()
        let failFirst = Mutex(true)
        let receiver = try WebhookReceiver { request, _ in
            let user = ((try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["data"] as? [String: Any])?["userId"] as? String
            if user == "user-a", failFirst.withLock({ $0 }) {
                failFirst.withLock { $0 = false }
                return MockHTTPResponse(status: 500)
            }
            return MockHTTPResponse(status: 200)
        }
        _ = try create(env, url: receiver.url)
        sign(env, user: "user-a")
        sign(env, user: "user-a")
        sign(env, user: "user-b")
        let clock = MovableClock()
        let worker = worker(env, clock: clock)
        worker.runRound()
        func users() -> [String] { receiver.bodies.compactMap { ($0["data"] as? [String: Any])?["userId"] as? String } }
        func nonces() -> [String] { receiver.bodies.compactMap { ($0["data"] as? [String: Any])?["nonce"] as? String } }
        #expect(users() == ["user-a", "user-b"], "user-a's second event waits behind the failed first")
        clock.advance(1.3)
        worker.runRound()
        #expect(users() == ["user-a", "user-b", "user-a", "user-a"])
        let sent = nonces()
        #expect(sent[0] == sent[2] && sent[3] != sent[0], "the first again, then the second")
        let log = try env.signatures.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10)
        #expect(log.filter { $0.record.userId == "user-a" }.map(\.record.nonce) == [sent[2], sent[3]])
    }

    @Test("replay queues a time range's events again; receivers see the same event IDs")
    func replay() throws {
        let env = try environment()
        let receiver = try WebhookReceiver()
        _ = try create(env, url: receiver.url)
        sign(env, user: "user-1")
        sign(env, user: "user-2")
        let clock = MovableClock()
        let worker = worker(env, clock: clock)
        worker.runRound()
        let first = receiver.bodies.compactMap { $0["id"] as? String }
        #expect(first.count == 2)
        let replay = env.send("POST", "/v1/admin/webhooks/crm/replay", role: .admin,
                              json: #"{"from": "2027-01-15T07:00:00Z", "to": "2027-01-15T09:00:00Z"}"#)
        #expect(replay.status == 202 && replay.json["queued"] as? Int == 2)
        clock.advance(400 * 86400)  // the admin API runs on the environment's fixed clock, a year ahead
        worker.runRound()
        #expect(receiver.bodies.compactMap { $0["id"] as? String } == first + first)
        let empty = env.send("POST", "/v1/admin/webhooks/crm/replay", role: .admin,
                             json: #"{"from": "2026-01-15T07:00:00Z", "to": "2026-01-15T09:00:00Z"}"#)
        #expect(empty.json["queued"] as? Int == 0)
        #expect(env.send("POST", "/v1/admin/webhooks/crm/replay", role: .admin,
                         json: #"{"from": "2027-01-15T09:00:00Z", "to": "2027-01-15T07:00:00Z"}"#).status == 400)
    }

    @Test("during a rotation each delivery carries a v1 of the new secret and one of the old; both verify")
    func rotation() throws {
        let env = try environment()
        let receiver = try WebhookReceiver()
        let old = try create(env, url: receiver.url)
        let rotated = env.send("POST", "/v1/admin/webhooks/crm/rotate-secret", role: .admin)
        let new = try #require(rotated.json["secret"] as? String)
        sign(env, user: "user-1")
        worker(env, clock: MovableClock()).runRound()
        let request = try #require(receiver.requests.first)
        let header = try #require(request.header("Offer-Signer-Signature"))
        #expect(header.components(separatedBy: ",v1=").count == 3)
        for secret in [new, old] {
            #expect((try? WebhookSignature.verify(header: header, body: [UInt8](request.body), secret: secret).get()) != nil)
        }
        #expect(WebhookSignature.verify(header: header, body: [UInt8](request.body), secret: "whsec_other") == .failure(.mismatch))
    }

    @Test("SSRF at connect: a name that now answers a loopback address (rebinding), a private address, a redirect: nothing reaches it")
    func ssrfAtConnect() throws {
        let env = try environment()
        let receiver = try WebhookReceiver()
        let elsewhere = try WebhookReceiver()
        let resolver = StubResolver()
        // Saved while the name answered a public address.
        resolver.set("hooks.example.test", ["93.184.216.34"])
        env.webhookPolicy = WebhookURLPolicy(allowPrivate: false, resolver: resolver)
        let saved = env.send("PUT", "/v1/admin/webhooks/rebound", role: .admin,
                             json: #"{"url": "https://hooks.example.test:\#(receiver.server.port)/hook", "events": ["offer.signed"]}"#)
        #expect(saved.status == 201)
        env.webhookPolicy = WebhookURLPolicy(allowPrivate: true)
        _ = try create(env, "local", url: receiver.url)
        sign(env, user: "user-1")
        // Now it answers loopback; and this instance does not allow private addresses.
        resolver.set("hooks.example.test", ["127.0.0.1"])
        let clock = MovableClock()
        worker(env, clock: clock, allowPrivate: false, resolver: resolver).runRound()
        #expect(receiver.requests.isEmpty, "nothing was sent to a loopback address")
        for id in ["rebound", "local"] {
            let item = try #require(env.webhookStore.deliveries(webhookId: id, state: nil, beforeId: nil, limit: 1).first)
            #expect(item.state == .pending && item.lastStatus == nil && item.lastError?.contains("loopback") == true, "\(id): \(item)")
        }
        // Pinned: with private addresses allowed, the connection goes to the address the check resolved
        // (the name is unknown to the system's resolver).
        resolver.set("hooks.example.test", ["127.0.0.1"])
        env.webhookPolicy = WebhookURLPolicy(allowPrivate: true, resolver: resolver)
        #expect(env.send("PUT", "/v1/admin/webhooks/rebound", role: .admin,
                         json: #"{"url": "http://hooks.example.test:\#(receiver.server.port)/pinned", "events": ["offer.signed"]}"#).status == 200)
        clock.advance(2)
        worker(env, clock: clock, allowPrivate: true, resolver: resolver).runRound()
        #expect(receiver.requests.map(\.path).sorted() == ["/hook", "/pinned"])

        // A redirect is not followed: the 302 is a failed try, and its target gets nothing.
        let redirecting = try WebhookReceiver { _, _ in MockHTTPResponse(status: 302, headers: [("Location", elsewhere.url)]) }
        _ = try create(env, "redirect", url: redirecting.url)
        sign(env, user: "user-2")
        clock.advance(5)
        worker(env, clock: clock).runRound()
        #expect(redirecting.requests.count == 1 && elsewhere.requests.isEmpty)
        let item = try #require(env.webhookStore.deliveries(webhookId: "redirect", state: nil, beforeId: nil, limit: 1).first)
        #expect(item.state == .pending && item.lastStatus == 302)
    }

    @Test("an integrity check that finds the chain broken announces chain.integrity_failed")
    func integrityFailure() throws {
        let env = try environment()
        let receiver = try WebhookReceiver()
        _ = try create(env, url: receiver.url, events: ["chain.integrity_failed"])
        sign(env, user: "user-1")
        sign(env, user: "user-2")
        #expect(env.send("GET", "/v1/audit/integrity", role: .auditor).json["ok"] as? Bool == true)
        #expect(worker(env, clock: MovableClock()).runRound() == 0, "nothing to announce while the chain is intact")
        try env.database.write { db in try db.execute("UPDATE signatures SET offer_id = 'tampered' WHERE seq = 1") }
        #expect(env.send("GET", "/v1/audit/integrity", role: .auditor).json["ok"] as? Bool == false)
        #expect(worker(env, clock: MovableClock()).runRound() == 1)
        let event = try #require(receiver.bodies.first)
        #expect(event["type"] as? String == "chain.integrity_failed" && event["bundleId"] is NSNull)
        #expect((event["data"] as? [String: Any])?["firstBadSequence"] as? Int == 1)
    }

    @Test("signing with no webhook writes no outbox row; disabled or other-type webhooks take none")
    func nothingWithoutSubscribers() throws {
        let env = try environment()
        sign(env, user: "user-1")
        _ = try create(env, "consent", url: "https://127.0.0.1/hook", events: ["consent.rescinded"])
        #expect(env.send("PUT", "/v1/admin/webhooks/off", role: .admin,
                         json: #"{"url": "https://127.0.0.1/hook", "events": ["offer.signed"], "enabled": false}"#).status == 201)
        sign(env, user: "user-2")
        let rows = try env.database.read { db in try db.scalar("SELECT COUNT(*) FROM webhook_outbox") }
        #expect(rows == 0)
    }
}
