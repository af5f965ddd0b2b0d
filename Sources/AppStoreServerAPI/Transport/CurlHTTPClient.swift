internal import CurlTransport

/// Sends HTTP requests with libcurl, from any thread, reusing idle easy handles (and so their
/// open connections) through CurlTransport's ``CurlHandlePool``.
final class CurlHTTPClient: Sendable {
    private let pool: CurlHandlePool

    init(maxIdleHandles: Int = 16) {
        pool = CurlHandlePool(maxIdleHandles: maxIdleHandles)
    }

    /// libcurl and its libraries, e.g. "libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13".
    static var libcurlVersion: String { CurlEasyHandle.libcurlVersion }

    func perform(_ request: HTTPExchangeRequest) throws(HTTPTransportFailure) -> HTTPExchangeResponse {
        let exchange = CurlRequest(method: request.method, url: request.url, headers: request.headers, body: request.body,
                                   timeout: request.timeout, connectTimeout: request.connectTimeout,
                                   maxResponseBytes: request.maxResponseBytes, acceptsEncoding: true)
        do {
            let response = try pool.perform(exchange)
            return HTTPExchangeResponse(status: response.status, headers: response.headers, body: response.body)
        } catch {
            switch error {
            case .timedOut: throw .timedOut
            case .responseTooLarge(let limit, _, _): throw .responseTooLarge(limit: limit)
            case .failed(let reason): throw .failed(reason)
            }
        }
    }
}
