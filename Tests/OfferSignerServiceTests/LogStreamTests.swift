import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore
import Testing

/// Logging never takes the process down: a line the log stream refuses (a full disk) is dropped
/// and counted, and one line says so once writing works again.
@Suite("Log stream on a full disk", .serialized)
struct LogStreamTests {
    @Test("lines written to a full device are dropped and counted (no trap); once the stream takes writes again one line reports how many, then logging goes on")
    func droppedThenReported() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("log-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("log").path
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(file >= 0)
        defer { close(file) }
        // The stream's descriptor: /dev/full first, then (dup2) a file with room.
        let descriptor = dup(full)
        close(full)
        defer { close(descriptor) }
        let stream = LogStream(descriptor: descriptor)
        let logger = Logger(minimumLevel: .info) { stream.write($0) }
        for index in 0..<3 { logger.log(.info, "lost", ["index": .int(index)]) }
        #expect(stream.droppedLines == 3)
        #expect(Metrics(logStream: stream).render().contains("offer_signer_log_lines_dropped_total 3\n"))

        #expect(dup2(file, descriptor) == descriptor)
        logger.log(.info, "kept")
        logger.log(.info, "kept too")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 3, "\(lines)")
        let notice = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(notice?["dropped"] as? Int == 3 && notice?["level"] as? String == "warning", "\(lines[0])")
        #expect(lines[1].contains(#""message":"kept""#) && lines[2].contains(#""message":"kept too""#))
        #expect(stream.droppedLines == 3)
    }

    @Test("serve with standard output and error on a full device (/dev/full) keeps serving: requests answered, the lines dropped counted in /metrics")
    func serveOnFullDevice() throws {
        let environment = try TestEnvironment()
        let database = environment.folder.appendingPathComponent("serve.sqlite").path
        let settings = [
            "OFFER_SIGNER_KEYS": environment.keysPath, "OFFER_SIGNER_DATABASE": database,
            "OFFER_SIGNER_APPLE_ROOTS": TestAppStore.folder.appendingPathComponent("root.pem").path,
            "OFFER_SIGNER_ENVIRONMENTS": "Production,Sandbox", "OFFER_SIGNER_LOG_LEVEL": "debug",
        ]
        let serve = try ServeProcess(environment: settings, logFolder: environment.folder, writingTo: "/dev/full")
        for _ in 0..<20 {
            #expect(TestHTTP.send(port: serve.port, "GET", "/v1/keys", token: TestEnvironment.tokens[.client]).status == 200)
        }
        let metrics = TestHTTP.send(port: serve.port, "GET", "/metrics")
        #expect(metrics.status == 200)
        let dropped = metrics.body.split(separator: "\n").first { $0.hasPrefix("offer_signer_log_lines_dropped_total ") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
        #expect(dropped >= 20, "\(dropped) lines counted as dropped")
        #expect(TestHTTP.send(port: serve.port, "GET", "/healthz").status == 200, "still alive")
    }
}
