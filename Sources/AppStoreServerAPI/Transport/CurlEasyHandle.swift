internal import CCurl
import Foundation

/// One libcurl easy handle. Kept between requests (reset, not freed) so its connection cache,
/// and with it keep-alive connections and TLS sessions to the App Store, is reused.
///
/// `@unchecked Sendable`: a handle is used by one thread at a time; ``CurlHTTPClient`` hands it
/// out and takes it back under its pool's lock.
final class CurlEasyHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    init() throws(HTTPTransportFailure) {
        _ = CurlHTTPClient.globalInitialization
        guard let handle = curl_easy_init() else { throw HTTPTransportFailure.failed("libcurl could not create a handle") }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sends `request` and reads the whole response.
    func perform(_ request: HTTPExchangeRequest) throws(HTTPTransportFailure) -> HTTPExchangeResponse {
        curl_easy_reset(handle)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for (name, value) in request.headers {
            guard let appended = curl_slist_append(headerList, "\(name): \(value)") else {
                throw HTTPTransportFailure.failed("libcurl could not allocate a header list")
            }
            headerList = appended
        }
        let collector = CurlResponseCollector(limit: request.maxResponseBytes)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorText in
            withExtendedLifetime(collector) {
                let context = Unmanaged.passUnretained(collector).toOpaque()
                let setup = [
                    ccurl_set_string(handle, CURLOPT_URL, request.url),
                    // Several threads use libcurl: never let it raise SIGALRM for name-resolution timeouts.
                    ccurl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                    ccurl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                    ccurl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                    ccurl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeout.wholeMilliseconds)),
                    ccurl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout.wholeMilliseconds)),
                    ccurl_set_string(handle, CURLOPT_ACCEPT_ENCODING, ""),
                    ccurl_set_headers(handle, headerList),
                    ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText.baseAddress),
                    ccurl_set_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                        guard let context else { return 0 }
                        let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
                        return collector.appendBody(UnsafeRawBufferPointer(start: data, count: size * count))
                    }),
                    ccurl_set_pointer(handle, CURLOPT_WRITEDATA, context),
                    ccurl_set_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                        guard let context else { return 0 }
                        let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
                        collector.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
                        return size * count
                    }),
                    ccurl_set_pointer(handle, CURLOPT_HEADERDATA, context),
                    methodSetup(request),
                ]
                if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
                let result = curl_easy_perform(handle)
                // Nothing of this exchange may be reached once it is over.
                _ = ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                _ = ccurl_set_pointer(handle, CURLOPT_WRITEDATA, nil)
                _ = ccurl_set_pointer(handle, CURLOPT_HEADERDATA, nil)
                return result
            }
        }
        guard code == CURLE_OK else {
            if collector.exceeded { throw HTTPTransportFailure.responseTooLarge(limit: request.maxResponseBytes) }
            if code == CURLE_OPERATION_TIMEDOUT { throw HTTPTransportFailure.timedOut }
            let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let summary = String(cString: curl_easy_strerror(code))
            throw HTTPTransportFailure.failed(detail.isEmpty ? summary : "\(summary): \(detail)")
        }
        var status = 0
        _ = ccurl_response_code(handle, &status)
        return HTTPExchangeResponse(status: status, headers: collector.headers, body: collector.body)
    }

    private func methodSetup(_ request: HTTPExchangeRequest) -> CURLcode {
        switch request.method {
        case "GET":
            return ccurl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "POST":
            // libcurl copies the body; a terminating zero keeps the pointer valid when it is empty.
            let body = (request.body ?? []).map { CChar(bitPattern: $0) } + [0]
            return body.withUnsafeBufferPointer { ccurl_set_post_body(handle, $0.baseAddress, body.count - 1) }
        default:
            // PUT, DELETE …: a body goes as POST's does, then the method is named.
            if let bytes = request.body {
                let body = bytes.map { CChar(bitPattern: $0) } + [0]
                let code = body.withUnsafeBufferPointer { ccurl_set_post_body(handle, $0.baseAddress, body.count - 1) }
                if code != CURLE_OK { return code }
            }
            return ccurl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
    }
}

/// Collects what libcurl's callbacks deliver for one exchange.
private final class CurlResponseCollector {
    let limit: Int
    private(set) var body = Data()
    private(set) var headers: [String: String] = [:]
    private(set) var exceeded = false

    init(limit: Int) { self.limit = limit }

    /// Returns the number of bytes taken; anything else makes libcurl abort the transfer.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= limit else {
            exceeded = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers = [:]  // a new response head (after 100 Continue): forget the previous one
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
