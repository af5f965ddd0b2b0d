import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
import Testing
import WebhookTransport

@Suite("Webhooks: a lane's connection kept between deliveries; a new connection only to the address checked for its post")
struct WebhookConnectionTests {
    let hooks = WebhookTests()

    static func post(to url: String, host: String, port: UInt16, address: String) -> WebhookPost {
        WebhookPost(url: url, headers: [("Content-Type", "application/json")], body: Array(#"{"id": "e"}"#.utf8),
                    timeout: .seconds(5), host: host, port: Int(port), address: address)
    }

    @Test("deliveries to one receiver, in one round and the next, go over one TCP connection")
    func keepAlive() throws {
        let env = try hooks.environment()
        let receiver = try WebhookReceiver()
        _ = try hooks.create(env, url: receiver.url)
        for user in ["user-1", "user-2", "user-3", "user-4", "user-5"] { hooks.sign(env, user: user) }
        let clock = MovableClock()
        let worker = hooks.worker(env, clock: clock)
        #expect(worker.runRound() == 5)
        hooks.sign(env, user: "user-6")
        clock.advance(5)
        #expect(worker.runRound() == 1)
        #expect(receiver.requests.count == 6)
        let connections = Set(receiver.requests.map(\.clientPort))
        #expect(connections.count == 1 && !connections.contains(0), "connections (client ports): \(connections)")
    }

    @Test("a socket to any address but the pinned one is refused, whatever libcurl resolved the URL's host to")
    func pinnedAddressOnly() throws {
        let receiver = try WebhookReceiver()
        let client = WebhookHTTPClient()
        let port = receiver.server.port
        // libcurl resolves "localhost" itself (the pin names another host): 127.0.0.1, where the receiver is, is not the pinned address.
        #expect(throws: WebhookPostFailure.self) {
            try client.send(Self.post(to: "http://localhost:\(port)/hook", host: "pinned.example.test", port: port, address: "127.0.0.2"))
        }
        #expect(receiver.requests.isEmpty)
        #expect(try client.send(Self.post(to: "http://localhost:\(port)/hook", host: "pinned.example.test", port: port, address: "127.0.0.1"))
            .status == 204)
        #expect(receiver.requests.count == 1)
    }

    @Test("a handle used before connects anew to the address checked for this post, not to the one the last post resolved")
    func newConnectionFollowsTheCheck() throws {
        // The receiver closes each connection, so every post needs a new one.
        let receiver = try WebhookReceiver { _, _ in MockHTTPResponse(status: 204, headers: [("Connection", "close")]) }
        let client = WebhookHTTPClient()
        let port = receiver.server.port
        let url = "http://hooks.example.test:\(port)/hook"
        #expect(try client.send(Self.post(to: url, host: "hooks.example.test", port: port, address: "127.0.0.1")).status == 204)
        // Now the name was checked as 127.0.0.2 (nothing listens there): the handle must not go back to 127.0.0.1.
        #expect(throws: WebhookPostFailure.self) {
            try client.send(Self.post(to: url, host: "hooks.example.test", port: port, address: "127.0.0.2"))
        }
        #expect(receiver.requests.count == 1)
        #expect(try client.send(Self.post(to: url, host: "hooks.example.test", port: port, address: "127.0.0.1")).status == 204)
        #expect(receiver.requests.count == 2 && Set(receiver.requests.map(\.clientPort)).count == 2)
    }
}
