import Foundation
import OfferSignerCore
import Synchronization

/// A client of Apple's App Store Connect API for one Team key: ES256 JWT authentication,
/// JSON:API listings followed through `links.next` exactly as Apple gives them, retries with
/// backoff after server errors and 429 `RATE_LIMIT_EXCEEDED`, Apple's hourly allowance
/// (`X-Rate-Limit`) respected, and `errors[]` mapped into ``AppStoreConnectError``.
///
/// Calls are synchronous and safe from any number of threads at once. Memory is bounded by the
/// largest body (``AppStoreConnectConfiguration/maxResponseBytes``) times the pages a listing
/// may have (``AppStoreConnectConfiguration/maxPages``); time by the timeout per attempt, the
/// retries' waits and the pages.
public final class AppStoreConnectClient: Sendable {
    public let credentials: AppStoreConnectCredentials
    public let configuration: AppStoreConnectConfiguration

    let baseURL: String
    let tokens: AppStoreConnectTokenIssuer
    let limiter: RequestRateLimiter
    let http: CurlHTTPClient
    let now: @Sendable () -> Date
    /// The allowance Apple last reported, and when the client last found it down to the reserve.
    private let allowance = Mutex<(last: AppStoreConnectRateLimit?, spentAt: ContinuousClock.Instant?)>((nil, nil))
    let userAgent = "offer-signer " + (CurlHTTPClient.libcurlVersion.split(separator: " ").first.map(String.init) ?? "libcurl")

    /// - Throws: when a credential is empty or a setting is out of range.
    public convenience init(credentials: AppStoreConnectCredentials,
                            configuration: AppStoreConnectConfiguration) throws(AppStoreConnectConfigurationError) {
        try self.init(credentials: credentials, configuration: configuration, now: { Date() })
    }

    init(credentials: AppStoreConnectCredentials, configuration: AppStoreConnectConfiguration,
         now: @escaping @Sendable () -> Date) throws(AppStoreConnectConfigurationError) {
        for (name, value) in [("key ID", credentials.keyId), ("issuer ID", credentials.issuerId)]
        where value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .missingCredential(name)
        }
        try configuration.validate()
        self.credentials = credentials
        self.configuration = configuration
        baseURL = configuration.effectiveBaseURL
        tokens = AppStoreConnectTokenIssuer(credentials: credentials, now: now)
        limiter = RequestRateLimiter(requestsPerSecond: configuration.requestsPerSecond)
        http = CurlHTTPClient()
        self.now = now
    }

    /// Apple's hourly allowance as the last answer reported it (nil before any answer).
    public var rateLimit: AppStoreConnectRateLimit? { allowance.withLock { $0.last } }

    // MARK: Reading

    /// One document: `GET path?query`.
    public func get(_ path: String, query: [(name: String, value: String)] = []) throws(AppStoreConnectError) -> JSONAPIDocument {
        try decode(try exchange(method: "GET", url: url(path, query), body: nil), "GET \(path)")
    }

    /// A listing, page after page: `GET path?query`, then each page's `links.next` exactly as
    /// given (it must stay on the API's host), handing each page to `onPage` until there is no
    /// `next`. Returns the pages read.
    ///
    /// - Throws: ``AppStoreConnectError/malformedResponse(_:)`` for a `next` that leaves the
    ///   API, repeats, or goes past ``AppStoreConnectConfiguration/maxPages``.
    @discardableResult
    public func list(_ path: String, query: [(name: String, value: String)] = [],
                     onPage: (JSONAPIDocument) throws(AppStoreConnectError) -> Void) throws(AppStoreConnectError) -> Int {
        var next = url(path, query)
        var seen: Set<String> = [next]
        var pages = 0
        while true {
            let page = try decode(try exchange(method: "GET", url: next, body: nil), "GET \(path)")
            pages += 1
            try onPage(page)
            guard let link = page.next else { return pages }
            guard link.hasPrefix(baseURL + "/"), !link.contains("#"),
                  link.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else {
                throw .malformedResponse("GET \(path): links.next '\(link.prefix(200))' is not a URL of \(baseURL)")
            }
            guard seen.insert(link).inserted else { throw .malformedResponse("GET \(path): links.next repeats '\(link.prefix(200))'") }
            guard pages < configuration.maxPages else {
                throw .malformedResponse("GET \(path): more than \(configuration.maxPages) pages")
            }
            next = link
        }
    }

    /// Every resource of a listing, every page read (see ``list(_:query:onPage:)``), with the included resources.
    public func all(_ path: String, query: [(name: String, value: String)] = []) throws(AppStoreConnectError) -> JSONAPIDocument {
        var whole = JSONAPIDocument(data: [])
        try list(path, query: query) { page in
            whole.data += page.data
            whole.included += page.included
        }
        return whole
    }

    // MARK: Writing

    /// `POST path` with a JSON:API body; Apple's answer (201) as a document.
    public func create(_ path: String, body: [UInt8]) throws(AppStoreConnectError) -> JSONAPIDocument {
        try decode(try exchange(method: "POST", url: url(path, []), body: body), "POST \(path)")
    }

    /// `PATCH path` with a JSON:API body; Apple's answer (200) as a document.
    public func update(_ path: String, body: [UInt8]) throws(AppStoreConnectError) -> JSONAPIDocument {
        try decode(try exchange(method: "PATCH", url: url(path, []), body: body), "PATCH \(path)")
    }

    /// `DELETE path` (Apple answers 204).
    public func delete(_ path: String) throws(AppStoreConnectError) {
        _ = try exchange(method: "DELETE", url: url(path, []), body: nil)
    }

    // MARK: Exchange

    /// The retry loop: the hourly allowance, pacing, the token; backoff after 5xx, timeouts and
    /// connection failures, and after 429 (Apple's `Retry-After` when it sends one).
    func exchange(method: String, url: String, body: [UInt8]?) throws(AppStoreConnectError) -> HTTPExchangeResponse {
        let policy = configuration.retry
        var attempts = 0
        var failures = 0
        var rateLimited = 0
        while true {
            try checkAllowance()
            do {
                try limiter.acquire(maxPauseWait: policy.maxRetryAfterWait)
            } catch {
                throw .rateLimited(retryAfter: now().addingTimeInterval(error.remaining.seconds), errors: [])
            }
            var headers: [(name: String, value: String)] = [
                ("Authorization", "Bearer " + (try tokens.token())), ("Accept", "application/json"), ("User-Agent", userAgent),
            ]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            let request = HTTPExchangeRequest(method: method, url: url, headers: headers, body: body, timeout: configuration.timeout,
                                              connectTimeout: configuration.connectTimeout,
                                              maxResponseBytes: configuration.maxResponseBytes)
            attempts += 1
            let response: HTTPExchangeResponse
            do {
                response = try http.perform(request)
            } catch {
                switch error {
                case .timedOut:
                    guard policy.retriesTimeouts, failures < policy.maxRetries else {
                        throw .timedOut(after: configuration.timeout, attempts: attempts)
                    }
                case .failed(let reason):
                    guard failures < policy.maxRetries else { throw .transportFailed(reason, attempts: attempts) }
                case .responseTooLarge(let limit):
                    throw .malformedResponse("\(method) \(Self.path(of: url)): a body of more than \(limit) bytes")
                }
                failures += 1
                Thread.sleep(forTimeInterval: policy.backoff(beforeRetry: failures).seconds)
                continue
            }
            record(AppStoreConnectRateLimit(header: response.headers["x-rate-limit"]))
            if (200..<300).contains(response.status) { return response }
            let errors = AppStoreConnectErrorItem.list(in: Array(response.body))
            switch response.status {
            case 401:
                tokens.discard()
                throw .unauthorized(keyId: credentials.keyId, issuerId: credentials.issuerId, errors: errors)
            case 429:
                rateLimited += 1
                let retryAfter = AppStoreServerAPIClient.retryAfter(response.headers["retry-after"], now: now())
                let wait = retryAfter.map { Duration.milliseconds(Int64(($0.timeIntervalSince(now()) * 1000).rounded(.up))) }
                    ?? policy.backoff(beforeRetry: rateLimited)
                limiter.pause(for: max(wait, .zero))
                guard rateLimited <= policy.maxRateLimitRetries, wait <= policy.maxRetryAfterWait else {
                    throw .rateLimited(retryAfter: retryAfter, errors: errors)
                }
            case 500...599:
                guard failures < policy.maxRetries else { throw .serverError(status: response.status, errors: errors, attempts: attempts) }
                failures += 1
                Thread.sleep(forTimeInterval: policy.backoff(beforeRetry: failures).seconds)
            default:
                throw .rejected(status: response.status, errors: errors)
            }
        }
    }

    /// Refuses to send while the allowance Apple last reported is down to the reserve, for a
    /// minute after it was found so (then one request goes, and its answer says again).
    private func checkAllowance() throws(AppStoreConnectError) {
        let clock = ContinuousClock()
        let refusal: AppStoreConnectError? = allowance.withLock { state in
            guard let spentAt = state.spentAt, let last = state.last else { return nil }
            if clock.now - spentAt >= .seconds(60) {
                state.spentAt = nil
                return nil
            }
            return .hourlyAllowanceSpent(limit: last.limit, remaining: last.remaining)
        }
        if let refusal { throw refusal }
    }

    private func record(_ rateLimit: AppStoreConnectRateLimit?) {
        guard let rateLimit else { return }
        let reserve = configuration.hourlyReserve
        allowance.withLock { state in
            state.last = rateLimit
            state.spentAt = rateLimit.remaining <= reserve ? ContinuousClock().now : nil
        }
    }

    private func decode(_ response: HTTPExchangeResponse, _ what: String) throws(AppStoreConnectError) -> JSONAPIDocument {
        do {
            return try JSONDecoder().decode(JSONAPIDocument.self, from: response.body)
        } catch {
            throw .malformedResponse("\(what): not a JSON:API document (\(error is DecodingError ? "\(Self.reason(error))" : "not JSON"))")
        }
    }

    /// The absolute URL of `path` (which must start with `/v`) and its query, percent-encoded.
    func url(_ path: String, _ query: [(name: String, value: String)]) -> String {
        guard !query.isEmpty else { return baseURL + path }
        return baseURL + path + "?" + query.map {
            AppStoreServerAPIClient.percentEncoded($0.name) + "=" + AppStoreServerAPIClient.percentEncoded($0.value)
        }.joined(separator: "&")
    }

    /// A path segment made of an ID Apple gave, refused when it could leave the segment.
    public static func segment(_ id: String) throws(AppStoreConnectError) -> String {
        guard (1...200).contains(id.utf8.count), id.utf8.allSatisfy({
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "=")
        }) else {
            throw .invalidArgument("'\(id.prefix(60))' is not an App Store Connect resource ID")
        }
        return id
    }

    private static func path(of url: String) -> String {
        url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
    }

    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not decodable" }
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context): return "field '\(path(context.codingPath))' has the wrong type"
        case .valueNotFound(_, let context): return "field '\(path(context.codingPath))' is null"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "field '\(path(context.codingPath))' is invalid"
        @unknown default: return "not decodable"
        }
    }
}
