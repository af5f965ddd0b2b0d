import Foundation

/// A blocking HTTP/1.1 exchange over a plain socket, one request per connection
/// (`Connection: close`), for setting up the service: it leaves no connection open, so the
/// per-address connection cap of the unavailability tests counts only the tests' own.
enum RawHTTP {
    struct Answer {
        /// 0 when no answer came.
        let status: Int
        let body: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    }

    static func send(port: Int, _ method: String, _ path: String, token: String? = nil, body: String? = nil,
                     timeout: Int = 15) -> Answer {
        let socket = connected(port: port, timeout: timeout)
        guard socket >= 0 else { return Answer(status: 0, body: "") }
        defer { close(socket) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        let payload = Array((body ?? "").utf8)
        if body != nil { request += "Content-Type: application/json\r\n" }
        request += "Content-Length: \(payload.count)\r\n\r\n"
        let bytes = Array(request.utf8) + payload
        guard bytes.withUnsafeBytes({ Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return Answer(status: 0, body: "")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return Answer(status: 0, body: "") }
        return Answer(status: status, body: text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? "")
    }

    /// A connected socket to 127.0.0.1:`port` (-1 when it cannot connect); the caller closes it.
    static func connected(port: Int, timeout: Int = 15) -> Int32 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return -1 }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else { close(socket); return -1 }
        return socket
    }

    /// A port of 127.0.0.1 free now.
    static func freePort() -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
