import Foundation
import OfferSignerTestSupport

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
        let exchange = Loopback.exchange(on: socket, port: port, method, path, token: token, body: body)
        return Answer(status: exchange?.status ?? 0, body: exchange?.body ?? "")
    }

    /// A connected socket to 127.0.0.1:`port` (-1 when it cannot connect); the caller closes it.
    static func connected(port: Int, timeout: Int = 15) -> Int32 {
        Loopback.connected(port: port, timeout: Double(timeout))
    }

    /// A port of 127.0.0.1 free now.
    static func freePort() -> Int {
        Loopback.freePort() ?? 0
    }
}
