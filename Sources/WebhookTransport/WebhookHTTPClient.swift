internal import CurlTransport
import Foundation

/// Posts webhook deliveries with libcurl (CurlTransport's easy handles): to the address the
/// caller resolved and checked, and nowhere else — libcurl resolves nothing itself
/// (`CURLOPT_RESOLVE`) and a socket to any other address is refused when it is opened, so a
/// new connection, also one made by a handle used before, goes only to the address checked for
/// its post; no proxy from the environment, no redirect followed, a timeout for the whole
/// exchange, and at most ``answerPrefixBytes`` of the answer kept.
///
/// Handles are kept between posts, by origin (scheme, host, port), so the next post to a
/// receiver goes over the connection the last one left open (keep-alive): one TCP (and TLS)
/// connection per webhook lane rather than one per delivery. A kept connection was opened to
/// an address checked for an earlier post.
public final class WebhookHTTPClient: Sendable {
    /// How much of an answer's body is kept (the deliveries list shows it).
    public static let answerPrefixBytes = 200
    /// A longer answer is cut off (its status still counts).
    static let maxAnswerBytes = 1 << 20

    private let pool: CurlHandlePool

    /// `maxIdleHandles`: how many idle handles (each with its open connections) are kept.
    public init(maxIdleHandles: Int = 32) {
        pool = CurlHandlePool(maxIdleHandles: maxIdleHandles)
    }

    /// Sends `post` and returns the receiver's status and the start of its body.
    public func send(_ post: WebhookPost) throws(WebhookPostFailure) -> WebhookPostAnswer {
        let request = CurlRequest(
            method: "POST", url: post.url, headers: post.headers.map { (name: $0.0, value: $0.1) }, body: post.body, timeout: post.timeout,
            maxResponseBytes: Self.maxAnswerBytes, keptResponseBytes: Self.answerPrefixBytes, collectsHeaders: false,
            ignoresProxyEnvironment: true, pin: CurlAddressPin(host: post.host, port: post.port, address: post.address))
        let secure = post.url.utf8.prefix(6).map { $0 | 0x20 } == Array("https:".utf8)
        do {
            let response = try pool.perform(request, origin: "\(secure ? "https" : "http")://\(post.host):\(post.port)")
            return WebhookPostAnswer(status: response.status, bodyPrefix: Array(response.body))
        } catch {
            switch error {
            case .timedOut: throw .timedOut
            case .responseTooLarge(_, let status, let kept) where status > 0:
                return WebhookPostAnswer(status: status, bodyPrefix: Array(kept))
            case .responseTooLarge(let limit, _, _): throw .failed("an answer of more than \(limit) bytes")
            case .failed(let reason): throw .failed(reason)
            }
        }
    }
}

/// One delivery to post.
public struct WebhookPost: Sendable {
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var timeout: Duration
    /// The URL's host (a name, or the address itself) and port.
    public var host: String
    public var port: Int
    /// The checked address: a new connection goes there and nowhere else.
    public var address: String

    public init(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration, host: String, port: Int, address: String) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.host = host
        self.port = port
        self.address = address
    }
}

/// What the receiver answered.
public struct WebhookPostAnswer: Sendable, Hashable {
    public let status: Int
    /// At most ``WebhookHTTPClient/answerPrefixBytes`` of the body.
    public let bodyPrefix: [UInt8]

    public init(status: Int, bodyPrefix: [UInt8]) {
        self.status = status
        self.bodyPrefix = bodyPrefix
    }
}

/// Why no answer came.
public enum WebhookPostFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case timedOut
    case failed(String)

    public var description: String {
        switch self {
        case .timedOut: "no answer within the timeout"
        case .failed(let reason): reason
        }
    }
}
