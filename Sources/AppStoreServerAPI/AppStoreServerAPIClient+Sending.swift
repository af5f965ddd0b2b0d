import Foundation

/// A request to the App Store Server API, relative to the base URL.
struct APIRequest: Sendable {
    var method: String
    var path: String
    var query: [(name: String, value: String)] = []
    var body: [UInt8]?
    /// The body's media type (Upload Image sends `image/png`).
    var contentType = "application/json"
}

extension AppStoreServerAPIClient {
    /// Sends `request` until it succeeds or fails for good, and decodes the answer as `type`.
    ///
    /// - Parameter transactionId: the transaction a 404 `TransactionIdNotFoundError` is about.
    func send<Response: Decodable>(_ request: APIRequest, transactionId: String?,
                                   as type: Response.Type) throws(AppStoreServerAPIError) -> Response {
        let response = try exchange(request, transactionId: transactionId)
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch let error as DecodingError {
            throw AppStoreServerAPIError.malformedResponse("\(request.method) \(request.path): \(Self.reason(error))")
        } catch {
            throw AppStoreServerAPIError.malformedResponse("\(request.method) \(request.path): not JSON")
        }
    }

    /// The retry loop: paces, authenticates and sends; backs off after server errors, timeouts
    /// and connection failures; waits for `Retry-After` after a 429.
    func exchange(_ request: APIRequest, transactionId: String?) throws(AppStoreServerAPIError) -> HTTPExchangeResponse {
        let policy = configuration.retry
        var attempts = 0
        var failures = 0
        var rateLimited = 0
        while true {
            do {
                try limiter.acquire(maxPauseWait: policy.maxRetryAfterWait)
            } catch {
                throw AppStoreServerAPIError.rateLimited(retryAfter: now().addingTimeInterval(error.remaining.seconds))
            }
            let exchange = HTTPExchangeRequest(
                method: request.method, url: url(for: request), headers: try headers(for: request), body: request.body,
                timeout: configuration.timeout, connectTimeout: configuration.connectTimeout,
                maxResponseBytes: configuration.maxResponseBytes)
            attempts += 1
            let response: HTTPExchangeResponse
            do {
                response = try http.perform(exchange)
            } catch {
                switch error {
                case .timedOut:
                    guard policy.retriesTimeouts, failures < policy.maxRetries else {
                        throw AppStoreServerAPIError.timedOut(after: configuration.timeout, attempts: attempts)
                    }
                case .failed(let reason):
                    guard failures < policy.maxRetries else {
                        throw AppStoreServerAPIError.transportFailed(reason, attempts: attempts)
                    }
                case .responseTooLarge(let limit):
                    throw AppStoreServerAPIError.malformedResponse("\(request.method) \(request.path): a body of more than \(limit) bytes")
                }
                failures += 1
                Thread.sleep(forTimeInterval: policy.backoff(beforeRetry: failures).seconds)
                continue
            }
            if (200..<300).contains(response.status) { return response }
            let payload = try? JSONDecoder().decode(ErrorPayload.self, from: response.body)
            switch response.status {
            case 401:
                tokens.discard()
                throw AppStoreServerAPIError.unauthorized(keyId: credentials.keyId, issuerId: credentials.issuerId,
                                                          bundleId: credentials.bundleId)
            case 404 where payload?.errorCode == ErrorPayload.transactionIdNotFound:
                throw AppStoreServerAPIError.transactionNotFound(transactionId: transactionId ?? "(none)")
            case 429:
                rateLimited += 1
                let retryAfter = Self.retryAfter(response.headers["retry-after"], now: now())
                let wait = retryAfter.map { Duration.milliseconds(Int64(($0.timeIntervalSince(now()) * 1000).rounded(.up))) }
                    ?? policy.backoff(beforeRetry: rateLimited)
                limiter.pause(for: max(wait, .zero))
                guard rateLimited <= policy.maxRateLimitRetries, wait <= policy.maxRetryAfterWait else {
                    throw AppStoreServerAPIError.rateLimited(retryAfter: retryAfter)
                }
            case _ where (500...599).contains(response.status) || Self.isRetryableNotFound(response.status, payload):
                guard failures < policy.maxRetries else {
                    throw AppStoreServerAPIError.serverError(status: response.status, errorCode: payload?.errorCode,
                                                             errorMessage: payload?.errorMessage, attempts: attempts)
                }
                failures += 1
                Thread.sleep(forTimeInterval: policy.backoff(beforeRetry: failures).seconds)
            default:
                throw AppStoreServerAPIError.requestRejected(status: response.status, errorCode: payload?.errorCode,
                                                             errorMessage: payload?.errorMessage)
            }
        }
    }

    /// Apple's "not found, but you can try again" answers.
    static func isRetryableNotFound(_ status: Int, _ payload: ErrorPayload?) -> Bool {
        guard status == 404, let code = payload?.errorCode else { return false }
        return ErrorPayload.retryableNotFound.contains(code)
    }

    private func headers(for request: APIRequest) throws(AppStoreServerAPIError) -> [(name: String, value: String)] {
        var headers = [("Authorization", "Bearer " + (try tokens.token())), ("Accept", "application/json"), ("User-Agent", userAgent)]
        if request.body != nil { headers.append(("Content-Type", request.contentType)) }
        return headers
    }

    private func url(for request: APIRequest) -> String {
        guard !request.query.isEmpty else { return baseURL + request.path }
        return baseURL + request.path + "?" + request.query.map { Self.percentEncoded($0.name) + "=" + Self.percentEncoded($0.value) }
            .joined(separator: "&")
    }

    /// `text` with every byte outside RFC 3986's unreserved characters percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The instant a `Retry-After` header names. Apple sends a UNIX time in milliseconds; a
    /// small number is read as HTTP's delay in seconds instead (no millisecond time that small
    /// is after 1973).
    static func retryAfter(_ value: String?, now: Date) -> Date? {
        guard let value, let number = Int64(value.trimmingCharacters(in: .whitespaces)), number >= 0 else { return nil }
        if number >= 100_000_000_000 { return Date(milliseconds: number) }
        return now.addingTimeInterval(TimeInterval(number))
    }

    private static func reason(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context): return "field '\(path(context.codingPath))' is not of type \(type)"
        case .valueNotFound(let type, let context): return "field '\(path(context.codingPath))' is null, expected \(type)"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "field '\(path(context.codingPath))' is invalid"
        @unknown default: return "not decodable"
        }
    }
}
