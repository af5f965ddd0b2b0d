import Foundation

/// An `offer-signer serve` process of its own (the debug build next to the tests), on a free
/// port of 127.0.0.1, for tests of several instances and of crashes. Stopped (SIGKILL) when
/// released, so a failing test leaves no process behind.
final class ServeProcess {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/offer-signer")

    let port: Int
    private let process = Process()
    private let log: URL

    /// Starts `serve` with `environment` (OFFER_SIGNER_* settings) and waits up to 20 s until
    /// `/readyz` answers 200. Its standard output and error go to a file in `logFolder`, or to
    /// `device` when given (`/dev/full`: a device whose every write fails, as on a full disk).
    init(environment: [String: String], logFolder: URL, writingTo device: String? = nil) throws {
        port = try Self.freePort()
        log = logFolder.appendingPathComponent("serve-\(port).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try device.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? FileHandle(forWritingTo: log)
        process.executableURL = Self.binary
        process.arguments = ["serve"]
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OFFER_SIGNER_") }
        for (key, value) in environment { variables[key] = value }
        variables["OFFER_SIGNER_LISTEN"] = "127.0.0.1:\(port)"
        process.environment = variables
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        let deadline = Date().addingTimeInterval(20)
        while TestHTTP.send(port: port, "GET", "/readyz", timeout: 1).status != 200 {
            guard process.isRunning, Date() < deadline else {
                kill()
                throw ServeFailed(log: output(), exited: !process.isRunning)
            }
            usleep(50_000)
        }
    }

    deinit { kill() }

    var pid: Int32 { process.processIdentifier }

    /// `kill -9`.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// What the process wrote.
    func output() -> String {
        (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    struct ServeFailed: Error, CustomStringConvertible {
        let log: String
        let exited: Bool
        var description: String { "serve \(exited ? "exited" : "did not become ready in 20 s"):\n\(log)" }
    }

    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        guard bound else { throw ServeFailed(log: "no free port", exited: false) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A blocking HTTP/1.1 client over a plain socket, one request per connection, with a hard
/// timeout: what the fault tests use to see each answer and how long it took.
enum TestHTTP {
    struct Answer {
        /// 0 when no answer came (refused, reset, timed out).
        let status: Int
        let body: String
        let seconds: Double
        /// The status line and header fields, as received.
        var head = ""

        /// The value of header field `name`, if the answer has it.
        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").dropFirst().lazy.compactMap { line -> String? in
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { return nil }
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }.first
        }

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    }

    static func send(port: Int, _ method: String, _ path: String, token: String? = nil, body: String? = nil,
                     timeout: Double = 15) -> Answer {
        let start = Date()
        func failed() -> Answer { Answer(status: 0, body: "", seconds: Date().timeIntervalSince(start)) }
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return failed() }
        defer { close(socket) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return failed() }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        let payload = Array((body ?? "").utf8)
        if body != nil { request += "Content-Type: application/json\r\n" }
        request += "Content-Length: \(payload.count)\r\n\r\n"
        let bytes = Array(request.utf8) + payload
        guard bytes.withUnsafeBytes({ Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return failed() }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return failed() }
        let split = text.range(of: "\r\n\r\n")
        let bodyText = split.map { String(text[$0.upperBound...]) } ?? ""
        return Answer(status: status, body: bodyText, seconds: Date().timeIntervalSince(start),
                      head: split.map { String(text[..<$0.lowerBound]) } ?? text)
    }
}
