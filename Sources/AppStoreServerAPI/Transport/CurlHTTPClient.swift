internal import CCurl
import Synchronization

/// Sends HTTP requests with libcurl, from any thread, reusing idle easy handles (and so their
/// open connections).
final class CurlHTTPClient: Sendable {
    /// libcurl's one-time global set-up (thread-safe in the libcurl 7.84+ that Debian ships).
    static let globalInitialization: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let idle = Mutex<[CurlEasyHandle]>([])
    private let maxIdleHandles: Int

    init(maxIdleHandles: Int = 16) {
        self.maxIdleHandles = maxIdleHandles
    }

    /// libcurl and its libraries, e.g. "libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13".
    static var libcurlVersion: String {
        _ = globalInitialization
        return String(cString: curl_version())
    }

    func perform(_ request: HTTPExchangeRequest) throws(HTTPTransportFailure) -> HTTPExchangeResponse {
        let handle: CurlEasyHandle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused
        } else {
            handle = try CurlEasyHandle()
        }
        defer {
            idle.withLock { handles in
                if handles.count < maxIdleHandles { handles.append(handle) }
            }
        }
        return try handle.perform(request)
    }
}
