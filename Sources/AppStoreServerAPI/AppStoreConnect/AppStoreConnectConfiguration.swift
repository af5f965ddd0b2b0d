/// How a client reaches the App Store Connect API, and the bounds on what one call may cost.
public struct AppStoreConnectConfiguration: Hashable, Sendable {
    /// Apple's App Store Connect API.
    public static let appleBaseURL = "https://api.appstoreconnect.apple.com"

    /// Another base URL (`http` or `https`, no query) for tests and staging; nil for Apple's
    /// (`OFFER_SIGNER_APPSTORE_CONNECT_URL`).
    public var baseURL: String?
    /// The longest one HTTP exchange may take, from name resolution to the last body byte.
    public var timeout: Duration
    /// The longest connecting (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// Retries after server errors, timeouts and connection failures, and after 429 `RATE_LIMIT_EXCEEDED`.
    public var retry: AppStoreServerAPIRetryPolicy
    /// The most requests per second this client sends (Apple allows 3,600 an hour per key, in bursts).
    public var requestsPerSecond: Double
    /// Requests Apple's hourly allowance (`X-Rate-Limit`'s `user-hour-rem`) must still have: at
    /// or below it the client sends nothing for a minute, so other users of the key keep some.
    public var hourlyReserve: Int
    /// The most pages one listing follows through `links.next`.
    public var maxPages: Int
    /// The largest response body accepted.
    public var maxResponseBytes: Int

    public init(baseURL: String? = nil, timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
                retry: AppStoreServerAPIRetryPolicy = AppStoreServerAPIRetryPolicy(), requestsPerSecond: Double = 10,
                hourlyReserve: Int = 20, maxPages: Int = 100, maxResponseBytes: Int = 4 << 20) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.retry = retry
        self.requestsPerSecond = requestsPerSecond
        self.hourlyReserve = hourlyReserve
        self.maxPages = maxPages
        self.maxResponseBytes = maxResponseBytes
    }

    /// The base URL requests go to, without a trailing slash.
    public var effectiveBaseURL: String {
        APIBaseURL.trimmed(baseURL ?? Self.appleBaseURL)
    }

    /// Refuses settings the client cannot work with.
    public func validate() throws(AppStoreConnectConfigurationError) {
        let url = effectiveBaseURL
        guard APIBaseURL.isUsable(url) else { throw .invalidBaseURL(url) }
        guard timeout > .zero, connectTimeout > .zero else { throw .invalidSetting("timeouts must be positive") }
        guard requestsPerSecond.isFinite, requestsPerSecond > 0 else { throw .invalidSetting("the request rate must be positive") }
        guard retry.isConsistent else { throw .invalidSetting("the retry policy needs non-negative counts and waits") }
        guard hourlyReserve >= 0, maxPages > 0, maxResponseBytes > 0 else { throw .invalidSetting("limits must be positive") }
    }
}

/// Why an App Store Connect client could not be made.
public enum AppStoreConnectConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidBaseURL(String)
    case invalidSetting(String)
    case missingCredential(String)

    public var description: String {
        switch self {
        case .invalidBaseURL(let url):
            "App Store Connect API base URL '\(url)' is not an http or https URL without query (e.g. https://api.appstoreconnect.apple.com)"
        case .invalidSetting(let reason): "App Store Connect API client: \(reason)"
        case .missingCredential(let name): "App Store Connect API credentials lack the \(name)"
        }
    }
}
