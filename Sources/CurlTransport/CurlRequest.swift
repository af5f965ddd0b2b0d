import Foundation

/// One HTTP exchange for ``CurlEasyHandle``: method, absolute URL, headers, optional body,
/// time limits, how much of the answer is kept, and where connections may go.
package struct CurlRequest: Sendable {
    package var method: String
    package var url: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]?
    /// The whole exchange (name resolution, connection, TLS, request, response) must end within this.
    package var timeout: Duration
    /// Connecting (including TLS) must end within this; nil: libcurl's default.
    package var connectTimeout: Duration?
    /// An answer whose body is longer than this is cut off (``CurlFailure/responseTooLarge(limit:status:kept:)``).
    package var maxResponseBytes: Int
    /// How much of the body is kept (the rest is read and dropped, up to ``maxResponseBytes``).
    package var keptResponseBytes: Int
    /// Whether the answer's headers are collected.
    package var collectsHeaders: Bool
    /// Asks for a compressed answer (any encoding libcurl decodes).
    package var acceptsEncoding: Bool
    /// No proxy, whatever the environment says (`http_proxy`, `https_proxy`, …).
    package var ignoresProxyEnvironment: Bool
    /// Where new connections must go (nil: wherever the URL's host resolves).
    package var pin: CurlAddressPin?

    package init(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]?, timeout: Duration,
                 connectTimeout: Duration? = nil, maxResponseBytes: Int, keptResponseBytes: Int? = nil, collectsHeaders: Bool = true,
                 acceptsEncoding: Bool = false, ignoresProxyEnvironment: Bool = false, pin: CurlAddressPin? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxResponseBytes = maxResponseBytes
        self.keptResponseBytes = keptResponseBytes ?? maxResponseBytes
        self.collectsHeaders = collectsHeaders
        self.acceptsEncoding = acceptsEncoding
        self.ignoresProxyEnvironment = ignoresProxyEnvironment
        self.pin = pin
    }
}

extension CurlRequest {
    /// Everything of a request but its headers and body: two requests of one shape set a handle's
    /// options alike, but for those.
    struct Shape: Equatable {
        var method: String
        var url: String
        var timeout: Duration
        var connectTimeout: Duration?
        var collectsHeaders: Bool
        var acceptsEncoding: Bool
        var ignoresProxyEnvironment: Bool
        var pin: CurlAddressPin?
    }

    var shape: Shape {
        Shape(method: method, url: url, timeout: timeout, connectTimeout: connectTimeout, collectsHeaders: collectsHeaders,
              acceptsEncoding: acceptsEncoding, ignoresProxyEnvironment: ignoresProxyEnvironment, pin: pin)
    }
}

/// The one address connections to a URL's host and port may go to: the URL's host resolves to
/// it (`CURLOPT_RESOLVE`, nothing resolved by libcurl), and a socket to any other address is
/// refused when libcurl opens it (`CURLOPT_OPENSOCKETFUNCTION`), whatever its caches hold.
/// A connection kept open from an earlier exchange was opened under that exchange's pin.
package struct CurlAddressPin: Sendable, Hashable {
    /// The URL's host (a name, or the address itself).
    package var host: String
    package var port: Int
    /// Textual IPv4 or IPv6 address.
    package var address: String

    package init(host: String, port: Int, address: String) {
        self.host = host
        self.port = port
        self.address = address
    }
}

/// An answer.
package struct CurlResponse: Sendable {
    package var status: Int
    /// Header values by lowercased name (the last value when a header repeats); empty unless collected.
    package var headers: [String: String]
    /// The body, or its first ``CurlRequest/keptResponseBytes``.
    package var body: Data
}

/// Why an exchange produced no complete answer.
package enum CurlFailure: Error, Sendable, Equatable {
    /// The time limit passed before the answer was complete.
    case timedOut
    /// The body was longer than allowed; what had come (the status is 0 when none had).
    case responseTooLarge(limit: Int, status: Int, kept: Data)
    /// Anything else libcurl reports: resolution, connection (a pinned address refused), TLS, protocol errors.
    case failed(String)
}

extension Duration {
    /// Whole milliseconds, rounded up so a positive limit never becomes zero ("no limit" to libcurl).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let fraction = attoseconds / 1_000_000_000_000_000
        let rest = attoseconds % 1_000_000_000_000_000
        return seconds * 1000 + fraction + (rest > 0 ? 1 : 0)
    }
}
