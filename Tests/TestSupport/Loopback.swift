import Foundation

/// Plain sockets on 127.0.0.1 for the tests: a free port, a connected socket, and one blocking
/// HTTP/1.1 exchange per connection (`Connection: close`), so that what a test sees is what the
/// server wrote, and no connection is left open behind it.
public enum Loopback {
    /// A port of 127.0.0.1 free now; nil when none could be bound.
    public static func freePort() -> Int? {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// A socket connected to 127.0.0.1:`port`, with `timeout` seconds on every send and
    /// receive; -1 when it cannot connect. The caller closes it.
    public static func connected(port: Int, timeout: Double = 15) -> Int32 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return -1 }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let ok = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else {
            close(socket)
            return -1
        }
        return socket
    }

    /// What came back of one exchange.
    public struct Exchange: Sendable {
        public let status: Int
        /// The status line and header fields, as received.
        public let head: String
        public let body: String
    }

    /// Sends one request on `socket` (connected to `port`) and reads the answer to the end;
    /// nil when it could not be sent or no HTTP/1.1 answer came.
    public static func exchange(on socket: Int32, port: Int, _ method: String, _ path: String, token: String? = nil,
                                body: String? = nil) -> Exchange? {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        let payload = Array((body ?? "").utf8)
        if body != nil { request += "Content-Type: application/json\r\n" }
        request += "Content-Length: \(payload.count)\r\n\r\n"
        let bytes = Array(request.utf8) + payload
        guard bytes.withUnsafeBytes({ Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return nil
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return nil }
        let split = text.range(of: "\r\n\r\n")
        return Exchange(status: status, head: split.map { String(text[..<$0.lowerBound]) } ?? text,
                        body: split.map { String(text[$0.upperBound...]) } ?? "")
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
