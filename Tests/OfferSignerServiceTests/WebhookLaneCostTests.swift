import AppStoreServerAPIMock
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerStore
import Synchronization
import Testing
import WebhookTransport

/// The calling thread's nice value (Linux keeps one per thread).
func currentThreadNiceness() -> Int32 {
    getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
}

/// Posts with libcurl, noting the nice value of each thread that posts.
final class NicenessNotingSender: WebhookSending {
    let client = WebhookHTTPClient()
    let postingThreads = Mutex<Set<Int32>>([])

    func send(_ post: WebhookPost) throws -> WebhookPostAnswer {
        postingThreads.withLock { _ = $0.insert(currentThreadNiceness()) }
        return try client.send(post)
    }
}

/// A resolver that counts its calls and whose answers the test sets.
final class CountingResolver: HostResolver {
    let answers = Mutex<(addresses: [String], calls: Int)>((["93.184.216.34"], 0))
    func set(_ addresses: [String]) { answers.withLock { $0.addresses = addresses } }
    var calls: Int { answers.withLock { $0.calls } }
    func addresses(of host: String) throws(HostResolutionFailure) -> [String] {
        answers.withLock { answers in
            answers.calls += 1
            return answers.addresses
        }
    }
}

@Suite("Webhooks: what a lane does once per claim rather than once per post (issue 37)")
struct WebhookLaneCostTests {
    @Test("a lane keys each secret once: the next posts reuse its key; a rotated secret is keyed, the one rotated out dropped")
    func secretsKeyedOnce() {
        var keys = WebhookSigningKeys()
        let first = keys.keys(for: ["whsec_a"])
        for _ in 0..<3 { #expect(keys.keys(for: ["whsec_a"]).map(ObjectIdentifier.init) == first.map(ObjectIdentifier.init)) }
        let rotated = keys.keys(for: ["whsec_b", "whsec_a"])
        #expect(rotated.count == 2 && rotated[1] === first[0] && rotated[0] !== first[0])
        let after = keys.keys(for: ["whsec_b"])
        #expect(after.count == 1 && after[0] === rotated[0])
        #expect(keys.keys(for: ["whsec_a"])[0] !== first[0], "a secret no longer asked for is not kept")
        let body = Array(#"{"id":"e"}"#.utf8)
        #expect(WebhookSignature.header(body: body, timestamp: 7, keys: rotated)
            == WebhookSignature.header(body: body, timestamp: 7, secrets: ["whsec_b", "whsec_a"]))
    }

    @Test("a URL is checked once for the posts of the next second, again after it or for another URL; a name rebound meanwhile is refused at the next check")
    func targetCheckedOncePerSecond() throws {
        let resolver = CountingResolver()
        let policy = WebhookURLPolicy(allowPrivate: false, resolver: resolver)
        var check = WebhookTargetCheck()
        let t0 = ContinuousClock.now
        let url = "https://hooks.example.test/hook"
        for offset in [0, 100, 999] {
            let target = try check.target(url, policy: policy, now: t0 + .milliseconds(offset))
            #expect(target.address == "93.184.216.34" && target.port == 443)
        }
        #expect(resolver.calls == 1)
        resolver.set(["10.0.0.7"])  // rebinding: the name now answers a private address
        #expect(try check.target(url, policy: policy, now: t0 + .milliseconds(999)).address == "93.184.216.34")
        #expect(throws: WebhookURLRefusal.self) { try check.target(url, policy: policy, now: t0 + .seconds(1)) }
        #expect(resolver.calls == 2)
        // A refusal holds for its second too; another URL is checked at once.
        #expect(throws: WebhookURLRefusal.self) { try check.target(url, policy: policy, now: t0 + .milliseconds(1500)) }
        #expect(resolver.calls == 2)
        resolver.set(["93.184.216.35"])
        #expect(try check.target("https://hooks.example.test/other", policy: policy, now: t0 + .milliseconds(1600)).address == "93.184.216.35")
        #expect(resolver.calls == 3)
    }

    @Test("posts of one shape reuse a handle's options: each carries its own headers and body; a closed connection or another shape is set up anew")
    func handleOptionsReused() throws {
        let failNext = Mutex(false)
        let receiver = try WebhookReceiver { _, _ in
            failNext.withLock { fail in
                defer { fail = false }
                return fail ? MockHTTPResponse(status: 204, headers: [("Connection", "close")]) : MockHTTPResponse(status: 204)
            }
        }
        let client = WebhookHTTPClient()
        let port = receiver.server.port
        func post(_ n: Int, timeout: Duration = .seconds(5)) -> WebhookPost {
            WebhookPost(url: "http://127.0.0.1:\(port)/hook", headers: [("Content-Type", "application/json"), ("Offer-Signer-Event-Id", "e-\(n)")],
                        body: Array(#"{"n": \#(n)}"#.utf8), timeout: timeout, host: "127.0.0.1", port: Int(port), address: "127.0.0.1")
        }
        for n in 1...3 { #expect(try client.send(post(n)).status == 204) }
        failNext.withLock { $0 = true }
        #expect(try client.send(post(4)).status == 204)  // the receiver closes that connection
        #expect(try client.send(post(5, timeout: .seconds(6))).status == 204)  // another shape: set up anew
        #expect(try client.send(post(6, timeout: .seconds(6))).status == 204)
        #expect(try client.send(post(7, timeout: .seconds(6))).status == 204)
        let requests = receiver.requests
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == (1...7).map { #"{"n": \#($0)}"# })
        #expect(requests.map { $0.headers.first { $0.name.lowercased() == "offer-signer-event-id" }?.value } == (1...7).map { "e-\($0)" })
        #expect(Set(requests.map(\.clientPort)).count == 2, "the connection closed after post 4 is the only one opened again")
    }

    @Test("a claim's posts run on a thread at the posting nice value; its claim and record on the lane's, at the process's (the write connection's holder is never the lowered one)")
    func postsAtLowerPriority() throws {
        let hooks = WebhookTests()
        let env = try hooks.environment()
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url)
        for user in ["user-1", "user-2", "user-3"] { hooks.sign(env, user: user) }
        let store = RecordCountingWebhookStore(env.webhookStore)
        let sender = NicenessNotingSender()
        let worker = WebhookDeliveryWorker(store: store, policy: WebhookURLPolicy(allowPrivate: true), sender: sender,
                                           schedule: WebhookTests.fast, metrics: env.metrics, logger: .silent)
        let own = currentThreadNiceness()
        #expect(worker.runRound() == 3)
        #expect(receiver.requests.count == 3)
        #expect(store.recorded.withLock { $0 } == [3])
        #expect(store.databaseThreadNiceness.withLock { $0 } == [own], "claims and records at the process's nice value")
        #expect(sender.postingThreads.withLock { $0 } == [WebhookPosting.niceness], "posts at the posting threads'")
    }
}
