internal import CCurl
import Foundation

/// Posts webhook deliveries with libcurl: one request, to the address given (the caller
/// resolved the host and checked the address; libcurl is told to use it, `CURLOPT_RESOLVE`,
/// and resolves nothing itself), no proxy from the environment, no redirect followed, a
/// timeout for the whole exchange, and at most ``answerPrefixBytes`` of the answer kept.
public struct WebhookHTTPClient: Sendable {
    /// How much of an answer's body is kept (the deliveries list shows it).
    public static let answerPrefixBytes = 200

    public init() {}

    /// Sends `post` and returns the receiver's status and the start of its body.
    public func send(_ post: WebhookPost) throws(WebhookPostFailure) -> WebhookPostAnswer {
        _ = Self.globalInitialization
        guard let handle = curl_easy_init() else { throw .failed("libcurl could not create a handle") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        var resolve: UnsafeMutablePointer<curl_slist>?
        defer {
            curl_slist_free_all(headers)
            curl_slist_free_all(resolve)
        }
        for (name, value) in post.headers + [("Expect", "")] {
            headers = curl_slist_append(headers, "\(name): \(value)")
        }
        if let pin = post.connectTo {
            let address = pin.address.contains(":") ? "[\(pin.address)]" : pin.address
            resolve = curl_slist_append(resolve, "\(pin.host):\(pin.port):\(address)")
        }
        let sink = AnswerSink()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let body = post.body.map { CChar(bitPattern: $0) } + [0]
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorText in
            withExtendedLifetime(sink) {
                let context = Unmanaged.passUnretained(sink).toOpaque()
                let setup = [
                    ccurl_set_string(handle, CURLOPT_URL, post.url),
                    ccurl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                    ccurl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                    ccurl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                    // No proxy, whatever the environment says: the checked address is the one connected to.
                    ccurl_set_string(handle, CURLOPT_PROXY, ""),
                    ccurl_set_string(handle, CURLOPT_NOPROXY, "*"),
                    ccurl_set_pointer(handle, CURLOPT_RESOLVE, resolve.map { UnsafeMutableRawPointer($0) }),
                    ccurl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(post.timeout.components.seconds * 1000
                                                                   + post.timeout.components.attoseconds / 1_000_000_000_000_000)),
                    ccurl_set_headers(handle, headers),
                    ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText.baseAddress),
                    ccurl_set_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                        guard let context else { return 0 }
                        let sink = Unmanaged<AnswerSink>.fromOpaque(context).takeUnretainedValue()
                        return sink.take(UnsafeRawBufferPointer(start: data, count: size * count))
                    }),
                    ccurl_set_pointer(handle, CURLOPT_WRITEDATA, context),
                    body.withUnsafeBufferPointer { ccurl_set_post_body(handle, $0.baseAddress, body.count - 1) },
                ]
                if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
                let result = curl_easy_perform(handle)
                _ = ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                _ = ccurl_set_pointer(handle, CURLOPT_WRITEDATA, nil)
                return result
            }
        }
        var status = 0
        _ = ccurl_response_code(handle, &status)
        guard code == CURLE_OK || (code == CURLE_WRITE_ERROR && sink.exceeded && status > 0) else {
            if code == CURLE_OPERATION_TIMEDOUT { throw .timedOut }
            let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let summary = String(cString: curl_easy_strerror(code))
            throw .failed(detail.isEmpty ? summary : "\(summary): \(detail)")
        }
        return WebhookPostAnswer(status: status, bodyPrefix: sink.prefix)
    }

    static let globalInitialization: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()
}

/// One delivery to post.
public struct WebhookPost: Sendable {
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var timeout: Duration
    /// The address to connect to for the URL's host and port (nil: the URL's host is an address).
    public var connectTo: (host: String, port: Int, address: String)?

    public init(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration,
                connectTo: (host: String, port: Int, address: String)?) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTo = connectTo
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

/// Keeps the first bytes of an answer and reads (and drops) the rest, up to 1 MiB.
private final class AnswerSink {
    private(set) var prefix: [UInt8] = []
    private var total = 0
    private(set) var exceeded = false

    func take(_ bytes: UnsafeRawBufferPointer) -> Int {
        total += bytes.count
        guard total <= 1 << 20 else {
            exceeded = true
            return 0
        }
        let room = WebhookHTTPClient.answerPrefixBytes - prefix.count
        if room > 0 { prefix += bytes.prefix(room) }
        return bytes.count
    }
}
