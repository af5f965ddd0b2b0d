/// How a client reaches the App Store Server API, and how patient it is.
public struct AppStoreServerAPIConfiguration: Hashable, Sendable {
    /// The environment, which chooses Apple's base URL.
    public var environment: AppStoreServerAPIEnvironment
    /// Another base URL (`http` or `https`, no query), for tests and staging; nil for Apple's.
    public var baseURL: String?
    /// The longest one HTTP exchange may take, from name resolution to the last body byte.
    public var timeout: Duration
    /// The longest connecting (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// Retries and their backoff.
    public var retry: AppStoreServerAPIRetryPolicy
    /// The most requests per second this client sends (Apple publishes 50 per app).
    public var requestsPerSecond: Double
    /// The most pages one call follows (each holds up to 20 items), against a server that
    /// never says `hasMore: false`.
    public var maxPages: Int
    /// The largest response body accepted.
    public var maxResponseBytes: Int

    public init(environment: AppStoreServerAPIEnvironment, baseURL: String? = nil,
                timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
                retry: AppStoreServerAPIRetryPolicy = AppStoreServerAPIRetryPolicy(),
                requestsPerSecond: Double = 50, maxPages: Int = 10_000, maxResponseBytes: Int = 4 << 20) {
        self.environment = environment
        self.baseURL = baseURL
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.retry = retry
        self.requestsPerSecond = requestsPerSecond
        self.maxPages = maxPages
        self.maxResponseBytes = maxResponseBytes
    }

    /// The base URL requests go to, without a trailing slash.
    public var effectiveBaseURL: String {
        APIBaseURL.trimmed(baseURL ?? environment.baseURL)
    }

    /// Refuses settings the client cannot work with.
    func validate() throws(AppStoreServerAPIConfigurationError) {
        let url = effectiveBaseURL
        guard APIBaseURL.isUsable(url) else { throw AppStoreServerAPIConfigurationError.invalidBaseURL(url) }
        guard timeout > .zero, connectTimeout > .zero else { throw AppStoreServerAPIConfigurationError.invalidTimeout }
        guard requestsPerSecond.isFinite, requestsPerSecond > 0 else {
            throw AppStoreServerAPIConfigurationError.invalidRequestsPerSecond(requestsPerSecond)
        }
        guard retry.isConsistent else { throw AppStoreServerAPIConfigurationError.invalidRetryPolicy }
        guard maxPages > 0 else { throw AppStoreServerAPIConfigurationError.invalidLimit("maxPages") }
        guard maxResponseBytes > 0 else { throw AppStoreServerAPIConfigurationError.invalidLimit("maxResponseBytes") }
    }
}

/// Why a client could not be made.
public enum AppStoreServerAPIConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidBaseURL(String)
    case invalidTimeout
    case invalidRequestsPerSecond(Double)
    case invalidRetryPolicy
    case invalidLimit(String)
    case missingCredential(String)

    public var description: String {
        switch self {
        case .invalidBaseURL(let url):
            "App Store Server API base URL '\(url)' is not an http or https URL without query (e.g. https://api.storekit.apple.com)"
        case .invalidTimeout:
            "App Store Server API timeouts must be positive"
        case .invalidRequestsPerSecond(let rate):
            "App Store Server API request rate \(rate) is not a positive number of requests per second"
        case .invalidRetryPolicy:
            "App Store Server API retry policy needs non-negative counts and waits, and a maximum backoff no shorter than the initial one"
        case .invalidLimit(let name):
            "App Store Server API \(name) must be positive"
        case .missingCredential(let name):
            "App Store Server API credentials lack the \(name)"
        }
    }
}
