import Foundation
import Testing
@testable import OfferSignerHTTP

/// Hostile clients over a real socket: request smuggling, slow drip, connection floods.
@Suite("libmicrohttpd server against hostile clients")
struct HTTPHardeningTests {
    /// The default configuration keeps an idle or unfinished connection open for 100 s, far
    /// longer than any ceiling below: a connection closed sooner was closed on purpose.
    func startServer(_ configuration: HTTPServerConfiguration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, connectionTimeoutSeconds: 120, requestTimeoutSeconds: 100, firstRequestLineTimeoutSeconds: 100
    )) throws -> HTTPServer {
        var builder = RouterBuilder<BasicRequestContext>()
        builder.add("POST", "/echo", maxBodyBytes: 64 * 1024) { request, _ in
            HTTPResponse.text("[" + String(decoding: request.body, as: UTF8.self) + "]")
        }
        builder.add("GET", "/hello") { request, _ in
            HTTPResponse.text("hello with \(request.query.count) parameters")
        }
        let server = HTTPServer(application: builder.build(), configuration: configuration)
        try server.start()
        return server
    }

    /// The response and how long the server took to answer and close.
    func exchange(_ server: HTTPServer, _ request: String) throws -> (text: String, seconds: TimeInterval) {
        let started = Date()
        let text = try RawHTTPClient.send(port: server.port, request, timeoutSeconds: 90)
        return (text, Date().timeIntervalSince(started))
    }

    /// Whether a request is served (200) within 60 s, asking again while the server answers 503.
    func servedAgain(_ server: HTTPServer) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        repeat {
            if (try? exchange(server, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))?.text.hasPrefix("HTTP/1.1 200") == true {
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    /// How many responses `text` holds (lines that are status lines).
    func statusLines(_ text: String) -> Int {
        text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.count
    }

    @Test("two different Content-Length fields: 400 and the connection closes, the rest is not read as a request")
    func conflictingContentLengths() throws {
        let server = try startServer()
        defer { server.stop() }
        let smuggled = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let (text, seconds) = try exchange(server,
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: \(smuggled.utf8.count + 3)\r\n\r\nabc" + smuggled)
        #expect(text.hasPrefix("HTTP/1.1 400"))
        #expect(text.contains("Connection: close"))
        #expect(statusLines(text) == 1, "the smuggled request is never answered")
        #expect(!text.contains("hello with"))
        #expect(seconds < 60, "closed after the answer, not kept open until the request timeout")
        // The same length twice is not ambiguous.
        let same = try exchange(server, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
        #expect(same.text.hasPrefix("HTTP/1.1 200") && same.text.hasSuffix("[abc]"))
    }

    /// Known issue (issue 33 §6): libmicrohttpd 0.9.75 parses Content-Length itself when the
    /// head is complete (`parse_connection_headers`), before any callback of ours, and answers
    /// a value it cannot parse with its own 400 (413 for one too large) whose head it sends
    /// twice. The request never reaches the application, and the connection closes after it.
    /// There is no hook between the head and that parse; the fix is a libmicrohttpd that
    /// sends its error responses once (this test then reports the known issue as gone).
    @Test("a malformed Content-Length gets exactly one response, a 400, and the connection closes",
          arguments: ["+2", "-1", "2, 2", "99999999999999999999"])
    func malformedContentLength(value: String) throws {
        let server = try startServer()
        defer { server.stop() }
        let (text, _) = try exchange(server, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\nab")
        #expect(!text.contains("[ab]"), "the body is never served")
        #expect(text.hasPrefix("HTTP/1.1 4"), "\(text)")
        withKnownIssue("libmicrohttpd 0.9.75 sends the head of its own error response twice (fixed in libmicrohttpd 1.0.0, not in Debian 12)") {
            #expect(statusLines(text) == 1, "one response on the connection: \(text)")
        }
    }

    @Test("a query parameter named twice is 400, as a JSON body's duplicate key is; once it is served")
    func repeatedQueryParameter() throws {
        var builder = RouterBuilder<BasicRequestContext>()
        builder.use(QueryParameterMiddleware())
        builder.add("GET", "/image", query: ["imageSize"]) { request, _ in
            HTTPResponse.text("size \(request.query["imageSize"] ?? "-")")
        }
        let server = HTTPServer(application: builder.build(), configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0))
        try server.start()
        defer { server.stop() }
        let (twice, _) = try exchange(server,
            "GET /image?imageSize=FULL_SIZE&imageSize=BULLET_POINT HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(twice.hasPrefix("HTTP/1.1 400"), "\(twice)")
        #expect(twice.contains("'imageSize' is given more than once"))
        let (same, _) = try exchange(server, "GET /image?imageSize=A&imageSize=A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(same.hasPrefix("HTTP/1.1 400"), "even with the same value")
        let (once, _) = try exchange(server, "GET /image?imageSize=FULL_SIZE HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(once.hasPrefix("HTTP/1.1 200") && once.hasSuffix("size FULL_SIZE"))
    }

    @Test("Content-Length together with Transfer-Encoding: chunked: 400 and the connection closes at once")
    func contentLengthWithChunked() throws {
        let server = try startServer()
        defer { server.stop() }
        let (text, seconds) = try exchange(server,
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 400"))
        #expect(text.contains("both Content-Length and Transfer-Encoding"))
        #expect(statusLines(text) == 1)
        #expect(seconds < 60, "closed after the answer, not kept open until the request timeout")
    }

    @Test("an HTTP/1.1 request without Host is refused with 400; HTTP/1.0 needs none")
    func missingHost() throws {
        let server = try startServer()
        defer { server.stop() }
        let (text, _) = try exchange(server, "GET /hello HTTP/1.1\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 400"))
        #expect(text.contains("Host header field"))
        #expect(statusLines(text) == 1)
        let twice = try exchange(server, "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
        #expect(twice.text.hasPrefix("HTTP/1.1 400"))
        let old = try exchange(server, "GET /hello HTTP/1.0\r\n\r\n")
        #expect(old.text.contains(" 200 ") && old.text.hasSuffix("hello with 0 parameters"))
    }

    @Test("Transfer-Encoding: gzip is answered 501 at once instead of hanging until the timeout")
    func unknownTransferCoding() throws {
        let server = try startServer()
        defer { server.stop() }
        let (text, seconds) = try exchange(server, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc")
        #expect(text.hasPrefix("HTTP/1.1 501"))
        #expect(text.contains("'gzip'"))
        #expect(seconds < 60, "answered, not left until the request timeout")
        let layered = try exchange(server, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(layered.text.hasPrefix("HTTP/1.1 501"))
    }

    @Test("a thousand query parameters get an answer (414), not a dropped connection; a few are served")
    func manyQueryParameters() throws {
        let server = try startServer()
        defer { server.stop() }
        for count in [500, 1000, 5000] {
            let query = (0..<count).map { "p\($0)=v" }.joined(separator: "&")
            let (text, _) = try exchange(server, "GET /hello?\(query) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(text.hasPrefix("HTTP/1.1 414"), "\(count) parameters")
            #expect(text.contains("more than 256 parameters"))
        }
        // A request line longer than the connection's memory: libmicrohttpd's own 414.
        let long = (0..<20_000).map { "p\($0)=v" }.joined(separator: "&")
        #expect(try exchange(server, "GET /hello?\(long) HTTP/1.1\r\nHost: x\r\n\r\n").text.hasPrefix("HTTP/1.1 414"))
        let query = (0..<256).map { "p\($0)=v" }.joined(separator: "&")
        let (text, _) = try exchange(server, "GET /hello?\(query) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 200") && text.hasSuffix("hello with 256 parameters"))
    }

    @Test("issue 38: the connection's memory still holds a head of ~40 KB of header fields (served) beside the 5,000-parameter line (the server's own 414)")
    func largeHeads() throws {
        let server = try startServer()
        defer { server.stop() }
        let fields = (0..<20).map { "X-Fill-\($0): " + String(repeating: "f", count: 1_950) + "\r\n" }.joined()
        let (text, _) = try exchange(server, "GET /hello HTTP/1.1\r\nHost: x\r\n\(fields)Connection: close\r\n\r\n")
        #expect(fields.utf8.count > 39_000)
        #expect(text.hasPrefix("HTTP/1.1 200") && text.hasSuffix("hello with 0 parameters"))
        let body = String(repeating: "b", count: 60_000)
        let echoed = try exchange(server, "POST /echo HTTP/1.1\r\nHost: x\r\n\(fields)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        #expect(echoed.text.hasPrefix("HTTP/1.1 200") && echoed.text.hasSuffix(body + "]"))
    }

    @Test("HEAD on a GET route answers like GET, without the body; the connection stays usable")
    func headLikeGet() throws {
        let server = try startServer()
        defer { server.stop() }
        let (text, _) = try exchange(server,
            "HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let responses = text.components(separatedBy: "HTTP/1.1 200").dropFirst().map { "200" + $0 }
        #expect(responses.count == 2)
        let head = try #require(responses.first)
        #expect(head.hasPrefix("200"))
        #expect(head.contains("Content-Length: 23\r\n"), "the length of the GET body")
        #expect(head.hasSuffix("\r\n\r\n"), "no body after the head")
        #expect(responses.last?.hasSuffix("hello with 0 parameters") == true)
        let post = try exchange(server, "HEAD /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(post.text.hasPrefix("HTTP/1.1 405"), "HEAD stands in only for GET")
    }

    @Test("a head trickled a byte at a time is cut off at the request timeout with 408")
    func slowDripHead() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, requestTimeoutSeconds: 1))
        defer { server.stop() }
        let fd = try RawHTTPClient.connect(port: server.port, timeoutSeconds: 30)
        defer { close(fd) }
        let started = Date()
        var open = RawHTTPClient.write(fd, "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        while open && Date().timeIntervalSince(started) < 60 {
            Thread.sleep(forTimeInterval: 0.2)
            open = RawHTTPClient.write(fd, "a") && !RawHTTPClient.peerClosed(fd)
        }
        let cutAfter = Date().timeIntervalSince(started)
        // Cut off at the 1 s timeout; kept open by the trickle, it would still be open at 60 s.
        #expect(!open && cutAfter >= 0.9, "cut off after \(cutAfter) s")
        #expect(RawHTTPClient.readAll(fd).hasPrefix("HTTP/1.1 408"))
    }

    @Test("a body trickled a byte at a time is cut off at the request timeout with 408")
    func slowDripBody() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, requestTimeoutSeconds: 1))
        defer { server.stop() }
        let fd = try RawHTTPClient.connect(port: server.port, timeoutSeconds: 30)
        defer { close(fd) }
        let started = Date()
        var open = RawHTTPClient.write(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        while open && Date().timeIntervalSince(started) < 60 {
            Thread.sleep(forTimeInterval: 0.2)
            open = RawHTTPClient.write(fd, "a") && !RawHTTPClient.peerClosed(fd)
        }
        let cutAfter = Date().timeIntervalSince(started)
        #expect(!open && cutAfter >= 0.9, "cut off after \(cutAfter) s, not kept open by the trickle")
        #expect(RawHTTPClient.readAll(fd).hasPrefix("HTTP/1.1 408"))
    }

    @Test("an upload at a fair rate may take longer than the request timeout")
    func fairUploadIsNotCut() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, requestTimeoutSeconds: 1,
                                                             minimumUploadBytesPerSecond: 1000))
        defer { server.stop() }
        let fd = try RawHTTPClient.connect(port: server.port, timeoutSeconds: 8)
        defer { close(fd) }
        // 4,000 bytes over about 2 s: 2,000 bytes a second, twice the minimum rate.
        RawHTTPClient.write(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\nConnection: close\r\n\r\n")
        for _ in 0..<10 {
            Thread.sleep(forTimeInterval: 0.2)
            RawHTTPClient.write(fd, String(repeating: "b", count: 400))
        }
        let text = RawHTTPClient.readAll(fd)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.hasSuffix(String(repeating: "b", count: 4000) + "]"))
    }

    @Test("trickling clients no longer starve the others: their slots free up at the request timeout")
    func slotsFreeUp() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, connectionLimit: 4, requestTimeoutSeconds: 1))
        defer { server.stop() }
        let dribblers = try (0..<4).map { _ in try RawHTTPClient.connect(port: server.port) }
        defer { dribblers.forEach { close($0) } }
        for fd in dribblers { RawHTTPClient.write(fd, "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ") }
        // Trickle until the server has cut every one off (the 60 s only catch a server that never does).
        let started = Date()
        var open = Set(dribblers)
        while !open.isEmpty && Date().timeIntervalSince(started) < 60 {
            Thread.sleep(forTimeInterval: 0.2)
            for fd in open where !RawHTTPClient.write(fd, "a") || RawHTTPClient.peerClosed(fd) { open.remove(fd) }
        }
        #expect(open.isEmpty, "\(open.count) trickling connections still open after 60 s")
        let (text, _) = try exchange(server, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 200"))
    }

    @Test("a client over the connection cap is answered 503 with Retry-After, not reset")
    func overCapacity() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, connectionLimit: 2))
        defer { server.stop() }
        var held = try (0..<2).map { _ in try RawHTTPClient.connect(port: server.port) }
        defer { held.forEach { close($0) } }
        // Busy, not idle: each is reading a request (an idle one would be closed to make room).
        for fd in held { RawHTTPClient.write(fd, "GET /hello HTTP/1.1\r\nHost: x\r\n") }
        Thread.sleep(forTimeInterval: 0.2)
        let (text, _) = try exchange(server, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 503"))
        #expect(text.contains("Retry-After: 1"))
        #expect(text.contains("Connection: close"))
        // A client over the cap that sends nothing is answered too, within two seconds.
        let silent = try RawHTTPClient.connect(port: server.port, timeoutSeconds: 30)
        defer { close(silent) }
        #expect(RawHTTPClient.readAll(silent).hasPrefix("HTTP/1.1 503"))
        // Once a slot is free, clients are served again (as soon as the server has seen the close).
        close(held.removeFirst())
        #expect(servedAgain(server), "a freed slot serves clients again")
    }

    @Test("a client over its address's connection cap is answered 503 with Retry-After, not reset")
    func overAddressCapacity() throws {
        let server = try startServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, perAddressConnectionLimit: 3))
        defer { server.stop() }
        var held = try (0..<3).map { _ in try RawHTTPClient.connect(port: server.port) }
        defer { held.forEach { close($0) } }
        Thread.sleep(forTimeInterval: 0.2)
        let (text, _) = try exchange(server, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 503"))
        #expect(text.contains("Retry-After: 1"))
        close(held.removeFirst())
        #expect(servedAgain(server), "a freed slot serves the address again")
    }
}

@Suite("request framing rules")
struct RequestFramingTests {
    func problem(_ headers: [(String, String)], version: String = "HTTP/1.1") -> HTTPProblem? {
        RequestFraming.problem(version: version, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    @Test("sound heads pass")
    func sound() {
        #expect(problem([("Host", "x")]) == nil)
        #expect(problem([("Host", "x"), ("Content-Length", "12")]) == nil)
        #expect(problem([("host", "x"), ("content-length", "5, 5")]) == nil)
        #expect(problem([("Host", "x"), ("Transfer-Encoding", "Chunked")]) == nil)
        #expect(problem([("Content-Length", "0")], version: "HTTP/1.0") == nil)
    }

    @Test("ambiguous framing is 400; an unknown coding 501")
    func refused() {
        #expect(problem([("Host", "x"), ("Content-Length", "5"), ("Content-Length", "6")])?.status == 400)
        #expect(problem([("Host", "x"), ("Content-Length", "5, 6")])?.status == 400)
        #expect(problem([("Host", "x"), ("Content-Length", "+5")])?.status == 400)
        #expect(problem([("Host", "x"), ("Content-Length", "99999999999999999999")])?.status == 400)
        #expect(problem([("Host", "x"), ("Content-Length", "")])?.status == 400)
        #expect(problem([("Host", "x"), ("Transfer-Encoding", "chunked"), ("Content-Length", "3")])?.status == 400)
        #expect(problem([("Host", "x"), ("Transfer-Encoding", "chunked, chunked")])?.status == 400)
        #expect(problem([("Transfer-Encoding", "chunked")], version: "HTTP/1.0")?.status == 400)
        #expect(problem([("Host", "x"), ("Transfer-Encoding", "identity")])?.status == 501)
        #expect(problem([("Host", "x"), ("Transfer-Encoding", "gzip"), ("Transfer-Encoding", "chunked")])?.status == 501)
        #expect(problem([])?.status == 400)
        #expect(problem([("Host", "a"), ("Host", "b")])?.status == 400)
    }

    @Test("field names are matched without case, byte by byte (issue 38): only the letters A–Z fold")
    func namesWithoutCase() {
        #expect(problem([("HOST", "x"), ("CONTENT-LENGTH", "5"), ("content-Length", "6")])?.status == 400)
        #expect(problem([("hOsT", "a"), ("HoSt", "b")])?.status == 400)
        #expect(problem([("HOST", "x"), ("TRANSFER-ENCODING", "chunked"), ("Content-length", "3")])?.status == 400)
        // '\r' | 0x20 is '-': a name that is not Content-Length must not be taken for it.
        #expect(problem([("Host", "x"), ("Transfer-Encoding", "chunked"), ("Content\rLength", "3")]) == nil)
        #expect(problem([("Hos", "x")])?.status == 400)
        #expect(RequestFraming.isNamed("Content-Length", "content-length") && !RequestFraming.isNamed("Content_Length", "content-length"))
    }

    @Test("issue 38: the one-pass check of a head's fields answers as the full check, over 30,000 random heads")
    func onePassAgreesWithFullCheck() {
        var generator = SystemRandomNumberGenerator()
        let names = ["Host", "host", "HOST", "Content-Length", "content-length", "CONTENT-length", "Transfer-Encoding",
                     "transfer-encoding", "Content\rLength", "Hos", "Hosts", "Accept", "X-Host", "K", "\u{212A}"]
        let values = ["x", "", "5", "12", "0", "5, 5", "5,6", " 5", "5 ", "+5", "99999999999999999999", "123456789012345678",
                      "chunked", "Chunked", "gzip", "chunked, chunked", "identity", "a\u{301}", "\t7"]
        for round in 0..<30_000 {
            var headers = HTTPHeaders()
            var fields: [(name: String, value: String)] = []
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let name = names.randomElement(using: &generator)!, value = values.randomElement(using: &generator)!
                headers.add(name, value)
                fields.append((name, value))
            }
            let version = round % 3 == 0 ? "HTTP/1.0" : "HTTP/1.1"
            let fast = RequestFraming.problem(version: version, headers: headers)?.response
            let full = RequestFraming.problem(version: version, headers: fields)?.response
            #expect(fast?.status == full?.status && fast?.body == full?.body, "\(version) \(fields)")
        }
    }
}
