import Foundation
import Testing

/// `OFFER_SIGNER_FIRST_LINE_TIMEOUT` reaches the server of `serve`.
@Suite("serve: the first request line's deadline")
struct FirstLineTimeoutTests {
    /// A connection to `port` with a 30 s receive timeout.
    func connection(_ port: Int) throws -> Int32 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        try #require(connected)
        return socket
    }

    func read(_ socket: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }

    func serve(firstLineTimeout: Int, in environment: TestEnvironment) throws -> ServeProcess {
        try ServeProcess(environment: [
            "OFFER_SIGNER_KEYS": environment.keysPath, "OFFER_SIGNER_DATABASE": environment.folder.appendingPathComponent("serve.sqlite").path,
            "OFFER_SIGNER_APPLE_ROOTS": TestAppStore.folder.appendingPathComponent("root.pem").path, "OFFER_SIGNER_LOG_LEVEL": "error",
            "OFFER_SIGNER_FIRST_LINE_TIMEOUT": String(firstLineTimeout), "OFFER_SIGNER_REQUEST_TIMEOUT": "60",
        ], logFolder: environment.folder)
    }

    @Test("OFFER_SIGNER_FIRST_LINE_TIMEOUT=20: a connection silent for 4 s (twice the default) is still served; =1: a silent one is answered 408 long before the 60 s request timeout")
    func setting() throws {
        let environment = try TestEnvironment()
        let patient = try serve(firstLineTimeout: 20, in: environment)
        let waiting = try connection(patient.port)
        defer { close(waiting) }
        Thread.sleep(forTimeInterval: 4)
        let request = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(waiting, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        #expect(read(waiting).hasPrefix("HTTP/1.1 200"))
        patient.kill()

        let strict = try serve(firstLineTimeout: 1, in: environment)
        let silent = try connection(strict.port)
        defer { close(silent) }
        let started = Date()
        let answer = read(silent)
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        #expect(Date().timeIntervalSince(started) < 30, "answered at the first-line deadline, not the 60 s request timeout")
    }
}
