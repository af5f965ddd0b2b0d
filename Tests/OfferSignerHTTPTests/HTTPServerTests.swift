import Foundation
import Testing
@testable import OfferSignerHTTP

@Suite("libmicrohttpd server over a real socket")
struct HTTPServerTests {
    func startServer(_ configuration: HTTPServerConfiguration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)) throws -> HTTPServer {
        var builder = RouterBuilder<BasicRequestContext>()
        builder.add("POST", "/echo", maxBodyBytes: 1024) { request, _ in
            var response = HTTPResponse.text(String(decoding: request.body, as: UTF8.self))
            response.headers.set("X-Query", request.query["q"] ?? "")
            response.headers.set("X-Peer", request.remoteAddress)
            return response
        }
        builder.add("POST", "/upload", maxBodyBytes: 4 << 20, spoolBody: true) { request, _ in
            guard let file = request.bodyFile, let data = FileManager.default.contents(atPath: file.path) else { return HTTPResponse.text("no file") }
            return HTTPResponse.text("spooled \(data.count) bytes in memory \(request.body.count)")
        }
        builder.add("GET", "/together") { _, _ in
            HTTPResponse.text(Rendezvous.shared.arrive(expecting: 8, within: 10) ? "together" : "alone")
        }
        builder.add("GET", "/slow") { _, _ in
            Thread.sleep(forTimeInterval: 0.3)
            return HTTPResponse.text("done")
        }
        let server = HTTPServer(application: builder.build(), configuration: configuration)
        try server.start()
        return server
    }

    @Test("a request round-trips: body, query, headers, peer address")
    func roundTrip() throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try RawHTTPClient.send(port: server.port, """
            POST /echo?q=hello%20world HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nX-Request-Id: r1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nabcde
            """)
        #expect(response.hasPrefix("HTTP/1.1 200"))
        #expect(response.hasSuffix("abcde"))
        #expect(response.contains("X-Query: hello world"))
        #expect(response.contains("X-Peer: 127.0.0.1"))
        #expect(response.contains("X-Request-Id: r1"))
    }

    @Test("a declared body over the limit is refused with 413 without reading it")
    func declaredTooLarge() throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try RawHTTPClient.send(port: server.port,
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n")
        #expect(response.hasPrefix("HTTP/1.1 413"))
        #expect(response.contains("payload_too_large"))
    }

    @Test("a chunked body over the limit is refused with 413")
    func chunkedTooLarge() throws {
        let server = try startServer()
        defer { server.stop() }
        let chunk = String(repeating: "a", count: 800)
        let response = try RawHTTPClient.send(port: server.port,
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(response.hasPrefix("HTTP/1.1 413"))
    }

    @Test("a spooled upload arrives as a file, which is removed after the response")
    func spooled() throws {
        let server = try startServer()
        defer { server.stop() }
        let body = String(repeating: "x", count: 2 << 20)
        let before = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("offer-signer-upload-") }
        let response = try RawHTTPClient.send(port: server.port,
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        #expect(response.hasSuffix("spooled 2097152 bytes in memory 0"))
        let after = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("offer-signer-upload-") }
        #expect(Set(after).subtracting(before).isEmpty)
    }

    @Test("an upload the preflight refuses is answered from its head, before any body is read")
    func preflightRefusal() throws {
        var builder = RouterBuilder<BasicRequestContext>()
        builder.use(RequireTokenMiddleware())
        builder.preflight = { head, _ in head.headers["Authorization"] == nil }
        builder.add("POST", "/upload", maxBodyBytes: 1 << 30, spoolBody: true) { _, _ in HTTPResponse.text("stored") }
        let server = HTTPServer(application: builder.build(), configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0))
        try server.start()
        defer { server.stop() }
        let started = Date()
        let refused = try RawHTTPClient.send(port: server.port,
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 500000000\r\n\r\n", timeoutSeconds: 5)
        #expect(refused.hasPrefix("HTTP/1.1 401"))
        #expect(Date().timeIntervalSince(started) < 4, "answered without waiting for 500 MB")
        let accepted = try RawHTTPClient.send(port: server.port,
            "POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        #expect(accepted.hasPrefix("HTTP/1.1 200") && accepted.hasSuffix("stored"))
    }

    @Test("keep-alive serves several requests on one connection")
    func keepAlive() throws {
        let server = try startServer()
        defer { server.stop() }
        let one = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
        let two = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\ntwo"
        let response = try RawHTTPClient.send(port: server.port, one + two)
        #expect(response.components(separatedBy: "HTTP/1.1 200").count == 3)
    }

    @Test("a blocked handler does not stop other connections from being served")
    func threadPerConnection() throws {
        let server = try startServer()
        defer { server.stop() }
        let results = ResultBox()
        // Each handler waits until all eight are running at once; served one after another,
        // the first would give up and answer "alone".
        let clients = (0..<8).map { _ in
            Thread {
                let response = try? RawHTTPClient.send(port: server.port, "GET /together HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                                       timeoutSeconds: 20)
                results.add(response?.hasSuffix("together") == true)
            }
        }
        clients.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(30)
        while results.count < 8 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(results.successes == 8, "the eight blocked handlers ran side by side")
    }

    @Test("slow-drip clients (slowloris) do not stop other clients from being served")
    func slowloris() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, connectionLimit: 200,
                                                             perAddressConnectionLimit: 100, connectionTimeoutSeconds: 5))
        defer { server.stop() }
        var dribblers: [Int32] = []
        defer { dribblers.forEach { close($0) } }
        for _ in 0..<60 {
            let fd = try RawHTTPClient.connect(port: server.port)
            _ = RawHTTPClient.write(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            dribblers.append(fd)
        }
        for round in 0..<3 {
            for fd in dribblers { _ = RawHTTPClient.write(fd, "a") }
            let started = Date()
            let response = try RawHTTPClient.send(port: server.port,
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            #expect(response.hasPrefix("HTTP/1.1 200"), "round \(round)")
            #expect(Date().timeIntervalSince(started) < 2)
        }
    }

    @Test("connections per address are capped; the rest are refused, not queued forever")
    func perAddressCap() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, perAddressConnectionLimit: 4))
        defer { server.stop() }
        let held = try (0..<4).map { _ in try RawHTTPClient.connect(port: server.port) }
        defer { held.forEach { close($0) } }
        Thread.sleep(forTimeInterval: 0.2)
        // The fifth is answered 503: not served, not left waiting (a timeout, an
        // empty read or a reset fails here), not queued until a slot frees.
        let refused = (try? RawHTTPClient.send(port: server.port, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeoutSeconds: 30)) ?? ""
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused.prefix(200))")
    }

    @Test("binding a port in use fails with a message naming it")
    func portInUse() throws {
        let first = try startServer()
        defer { first.stop() }
        let second = HTTPServer(application: RouterBuilder<BasicRequestContext>().build(), configuration: HTTPServerConfiguration(host: "127.0.0.1", port: first.port))
        #expect(throws: HTTPServerError.self) { try second.start() }
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(application: RouterBuilder<BasicRequestContext>().build(), configuration: HTTPServerConfiguration(host: "example.com", port: 0)).start()
        }
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var ok = 0
    private var all = 0
    func add(_ success: Bool) { lock.withLock { all += 1; if success { ok += 1 } } }
    var successes: Int { lock.withLock { ok } }
    var count: Int { lock.withLock { all } }
}

/// Handlers that arrive here wait until `expecting` of them are here at once.
final class Rendezvous: @unchecked Sendable {
    static let shared = Rendezvous()
    private let condition = NSCondition()
    private var arrived = 0

    /// True when `expecting` callers were waiting together within `seconds`.
    func arrive(expecting: Int, within seconds: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date().addingTimeInterval(seconds)
        while arrived < expecting {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}

/// Refuses requests without an Authorization header (for the preflight test).
struct RequireTokenMiddleware: HTTPMiddleware {
    func handle(_ request: HTTPRequest, context: BasicRequestContext, next: HTTPResponder<BasicRequestContext>) throws -> HTTPResponse {
        guard request.headers["Authorization"] != nil else { throw HTTPProblem.unauthorized("no token") }
        return try next(request, context)
    }
}
