internal import CCurl
import Foundation

/// One libcurl easy handle. Kept between exchanges (reset, not freed) so its connection cache,
/// and with it keep-alive connections and TLS sessions, is reused; ``CurlHandlePool`` keeps
/// idle ones. Redirects are never followed, libcurl raises no signal, only HTTP and HTTPS.
///
/// `@unchecked Sendable`: a handle is used by one thread at a time; the pool hands it out and
/// takes it back under its lock.
package final class CurlEasyHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// What the handle's options were last set for, after an exchange that ended well: the next
    /// exchange of the same shape (a webhook lane's next post) sets only its headers, body and
    /// this exchange's pointers, not every option again after a reset.
    private var configured: CurlRequest.Shape?

    /// libcurl's one-time global set-up (thread-safe in the libcurl 7.84+ that Debian ships).
    package static let globalInitialization: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// libcurl and its libraries, e.g. "libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13".
    package static var libcurlVersion: String {
        _ = globalInitialization
        return String(cString: curl_version())
    }

    package init() throws(CurlFailure) {
        _ = Self.globalInitialization
        guard let handle = curl_easy_init() else { throw CurlFailure.failed("libcurl could not create a handle") }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sends `request` and reads the answer.
    package func perform(_ request: CurlRequest) throws(CurlFailure) -> CurlResponse {
        let shape = request.shape
        let reusing = configured == shape
        configured = nil  // set again only if this exchange ends well
        if !reusing { curl_easy_reset(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        var resolveList: UnsafeMutablePointer<curl_slist>?
        defer {
            curl_slist_free_all(headerList)
            curl_slist_free_all(resolveList)
        }
        // libcurl adds "Expect: 100-continue" to larger bodies; a round trip for nothing.
        for (name, value) in request.headers + (request.body == nil ? [] : [("Expect", "")]) {
            guard let appended = curl_slist_append(headerList, "\(name): \(value)") else {
                throw CurlFailure.failed("libcurl could not allocate a header list")
            }
            headerList = appended
        }
        // The pinned address, in C memory for as long as libcurl may open a socket (this perform).
        var pinnedAddress: UnsafeMutablePointer<CChar>?
        if let pin = request.pin {
            guard let copy = strdup(pin.address) else { throw CurlFailure.failed("could not copy the pinned address") }
            pinnedAddress = copy
        }
        defer { free(pinnedAddress) }
        if !reusing, let pin = request.pin, !pin.host.contains(":") {
            // A name, or an IPv4 address (libcurl consults its DNS cache for those too): an entry for the same
            // host and port replaces the one an earlier exchange left in the handle's cache. (An IPv6 host cannot
            // be given here in libcurl 7.88; none is ever pinned to another address, and the socket check holds.)
            let address = pin.address.contains(":") ? "[\(pin.address)]" : pin.address
            guard let appended = curl_slist_append(resolveList, "\(pin.host):\(pin.port):\(address)") else {
                throw CurlFailure.failed("libcurl could not allocate a resolve list")
            }
            resolveList = appended
        }
        let collector = CurlResponseCollector(limit: request.maxResponseBytes, kept: request.keptResponseBytes)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorText in
            withExtendedLifetime(collector) {
                let context = Unmanaged.passUnretained(collector).toOpaque()
                // This exchange's own: its headers, body and the pointers to this call's buffers.
                var setup = [
                    ccurl_set_headers(handle, headerList),
                    ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText.baseAddress),
                    ccurl_set_pointer(handle, CURLOPT_WRITEDATA, context),
                    methodSetup(request),
                ]
                if !reusing { setup += shapeSetup(request) }
                if let pinnedAddress {
                    // A handle reused for the same pin keeps the resolve entry its first exchange loaded
                    // (libcurl loads CURLOPT_RESOLVE once per setting); no list is left for it to read again.
                    setup.append(ccurl_set_pointer(handle, CURLOPT_RESOLVE, reusing ? nil : resolveList.map { UnsafeMutableRawPointer($0) }))
                    setup.append(ccurl_pin_connections(handle, pinnedAddress))
                }
                if request.collectsHeaders { setup.append(ccurl_set_pointer(handle, CURLOPT_HEADERDATA, context)) }
                if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
                let result = curl_easy_perform(handle)
                // Nothing of this exchange may be reached once it is over.
                _ = ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                _ = ccurl_set_pointer(handle, CURLOPT_WRITEDATA, nil)
                _ = ccurl_set_pointer(handle, CURLOPT_HEADERDATA, nil)
                if pinnedAddress != nil { _ = ccurl_pin_connections(handle, nil) }  // a socket opened now would be refused
                return result
            }
        }
        var status = 0
        _ = ccurl_response_code(handle, &status)
        guard code == CURLE_OK else {
            if collector.exceeded {
                throw CurlFailure.responseTooLarge(limit: request.maxResponseBytes, status: status, kept: collector.body)
            }
            if code == CURLE_OPERATION_TIMEDOUT { throw CurlFailure.timedOut }
            let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let summary = String(cString: curl_easy_strerror(code))
            throw CurlFailure.failed(detail.isEmpty ? summary : "\(summary): \(detail)")
        }
        configured = shape
        return CurlResponse(status: status, headers: collector.headers, body: collector.body)
    }

    /// The options every exchange of `request`'s shape sets alike (after a reset).
    private func shapeSetup(_ request: CurlRequest) -> [CURLcode] {
        var setup = [
            ccurl_set_string(handle, CURLOPT_URL, request.url),
            // Several threads use libcurl: never let it raise SIGALRM for name-resolution timeouts.
            ccurl_set_long(handle, CURLOPT_NOSIGNAL, 1),
            ccurl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            ccurl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            ccurl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeout.wholeMilliseconds)),
            ccurl_set_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                guard let context else { return 0 }
                let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
                return collector.appendBody(UnsafeRawBufferPointer(start: data, count: size * count))
            }),
        ]
        if let connectTimeout = request.connectTimeout {
            setup.append(ccurl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout.wholeMilliseconds)))
        }
        if request.acceptsEncoding { setup.append(ccurl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")) }
        if request.ignoresProxyEnvironment {
            setup.append(ccurl_set_string(handle, CURLOPT_PROXY, ""))
            setup.append(ccurl_set_string(handle, CURLOPT_NOPROXY, "*"))
        }
        if request.collectsHeaders {
            setup.append(ccurl_set_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                guard let context else { return 0 }
                let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
                collector.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            }))
        }
        return setup
    }

    private func methodSetup(_ request: CurlRequest) -> CURLcode {
        switch request.method {
        case "GET":
            return ccurl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "POST":
            return setPostBody(request.body ?? [])
        default:
            // PUT, DELETE …: a body goes as POST's does, then the method is named.
            if let bytes = request.body {
                let code = setPostBody(bytes)
                if code != CURLE_OK { return code }
            }
            return ccurl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    /// The body, copied by libcurl straight from the array's storage (its length given first, so
    /// no terminating zero is needed; an empty body is given a valid pointer all the same).
    private func setPostBody(_ body: [UInt8]) -> CURLcode {
        guard !body.isEmpty else { return ccurl_set_post_body(handle, "", 0) }
        return body.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { ccurl_set_post_body(handle, $0.baseAddress, $0.count) }
        }
    }
}

/// Collects what libcurl's callbacks deliver for one exchange.
private final class CurlResponseCollector {
    let limit: Int
    let kept: Int
    private(set) var body = Data()
    private var total = 0
    private(set) var headers: [String: String] = [:]
    private(set) var exceeded = false

    init(limit: Int, kept: Int) {
        self.limit = limit
        self.kept = min(kept, limit)
    }

    /// Returns the number of bytes taken; anything else makes libcurl abort the transfer.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        total += bytes.count
        guard total <= limit else {
            exceeded = true
            return 0
        }
        let room = kept - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
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
