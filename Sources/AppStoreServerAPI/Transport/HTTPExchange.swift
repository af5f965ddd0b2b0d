import Foundation

/// A request the transport sends: method, absolute URL, headers, optional body, time limits.
struct HTTPExchangeRequest: Sendable {
    var method: String
    var url: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]?
    /// The whole exchange (name resolution, connection, TLS, request, response) must end within this.
    var timeout: Duration
    /// Connecting (including TLS) must end within this.
    var connectTimeout: Duration
    /// Response bodies longer than this are refused.
    var maxResponseBytes: Int
}

/// A complete HTTP response.
struct HTTPExchangeResponse: Sendable {
    var status: Int
    /// Header values by lowercased name (the last value when a header repeats).
    var headers: [String: String]
    var body: Data
}

/// Why an exchange produced no HTTP response.
enum HTTPTransportFailure: Error, Equatable, Sendable {
    /// The time limit passed before the response was complete.
    case timedOut
    /// The response body was longer than allowed.
    case responseTooLarge(limit: Int)
    /// Anything else libcurl reports: resolution, connection, TLS, protocol errors.
    case failed(String)
}

extension Duration {
    /// The duration in seconds, as a floating-point value.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
