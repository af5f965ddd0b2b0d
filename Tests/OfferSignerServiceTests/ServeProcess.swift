import Foundation
import OfferSignerTestSupport

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
    /// With `ready` false it waits only until `/healthz` answers (a service that starts not ready).
    init(environment: [String: String], logFolder: URL, writingTo device: String? = nil, ready: Bool = true) throws {
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
        while TestHTTP.send(port: port, "GET", ready ? "/readyz" : "/healthz", timeout: 1).status != 200 {
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
        guard let port = Loopback.freePort() else { throw ServeFailed(log: "no free port", exited: false) }
        return port
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
        let socket = Loopback.connected(port: port, timeout: timeout)
        guard socket >= 0 else { return Answer(status: 0, body: "", seconds: Date().timeIntervalSince(start)) }
        defer { close(socket) }
        let exchange = Loopback.exchange(on: socket, port: port, method, path, token: token, body: body)
        return Answer(status: exchange?.status ?? 0, body: exchange?.body ?? "", seconds: Date().timeIntervalSince(start),
                      head: exchange?.head ?? "")
    }
}
