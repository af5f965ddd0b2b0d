import AppStoreServerAPI
import Foundation
import OfferSignerCore
import Synchronization

/// The App Store Server API clients in force: one per configured app and accepted environment,
/// each authenticated with the app's active In-App Purchase key and its `issuerId` from the keys
/// file. Rebuilt when the keys file is reloaded; a client whose key and issuer did not change is
/// kept, with its rate limit and token.
public final class AppStoreAPIClients: Sendable {
    /// What every client shares: where requests go, how fast and how patiently.
    public struct Options: Sendable {
        /// The environments to call, Production first (from the accepted environments).
        public var environments: [AppStoreServerAPIEnvironment]
        /// A base URL for every environment instead of Apple's (`OFFER_SIGNER_APPSTORE_API_URL`).
        public var baseURL: String?
        /// Base URLs for single environments (tests that run a mock per environment).
        public var baseURLs: [AppStoreServerAPIEnvironment: String]
        /// Requests per second per app and environment (Apple publishes 50 per app).
        public var requestsPerSecond: Double
        /// Timeouts and retries of every call.
        public var timeout: Duration
        public var retry: AppStoreServerAPIRetryPolicy

        public init(environments: [AppStoreServerAPIEnvironment], baseURL: String? = nil,
                    baseURLs: [AppStoreServerAPIEnvironment: String] = [:], requestsPerSecond: Double = 50,
                    timeout: Duration = .seconds(30), retry: AppStoreServerAPIRetryPolicy = AppStoreServerAPIRetryPolicy()) {
            self.environments = environments
            self.baseURL = baseURL
            self.baseURLs = baseURLs
            self.requestsPerSecond = requestsPerSecond
            self.timeout = timeout
            self.retry = retry
        }

        /// The options the settings give: their environments (Production first), base URL and rate.
        public init(settings: ServiceSettings) {
            self.init(environments: AppStoreServerAPIEnvironment.allCases.filter { settings.environments.contains($0.rawValue) },
                      baseURL: settings.appStoreAPIURL, requestsPerSecond: settings.appStoreAPIRate)
        }
    }

    private struct Entry {
        let keyId: String
        let issuerId: String
        let client: AppStoreServerAPIClient
    }

    private struct Key: Hashable {
        let bundleId: String
        let environment: AppStoreServerAPIEnvironment
    }

    private struct State {
        var clients: [Key: Entry] = [:]
        /// Configured apps that cannot call the API, with the reason.
        var unavailable: [String: AppStoreAPIUnavailable] = [:]
    }

    public let options: Options
    private let state = Mutex(State())

    /// Makes the clients of every app in `configuration`.
    ///
    /// - Throws: when a base URL, the rate or the retry policy cannot be used.
    public init(configuration: KeyConfiguration, options: Options) throws(AppStoreServerAPIConfigurationError) {
        self.options = options
        try update(for: configuration)
    }

    /// The environments clients are made for, Production first.
    public var environments: [AppStoreServerAPIEnvironment] { options.environments }

    /// Apps that can call the API, by bundle ID.
    public var bundleIds: [String] {
        state.withLock { Set($0.clients.keys.map(\.bundleId)).sorted() }
    }

    /// The client of `bundleId` in `environment`.
    public func client(bundleId: String, environment: AppStoreServerAPIEnvironment) throws(AppStoreAPIUnavailable) -> AppStoreServerAPIClient {
        let found: Result<AppStoreServerAPIClient, AppStoreAPIUnavailable> = state.withLock { state in
            if let entry = state.clients[Key(bundleId: bundleId, environment: environment)] { return .success(entry.client) }
            if let reason = state.unavailable[bundleId] { return .failure(reason) }
            if !options.environments.contains(environment) { return .failure(.environmentNotAccepted(environment.rawValue)) }
            return .failure(.unknownApp(bundleId: bundleId))
        }
        return try found.get()
    }

    /// Takes the apps and keys of a (re)loaded keys file.
    public func update(for configuration: KeyConfiguration) throws(AppStoreServerAPIConfigurationError) {
        let previous = state.withLock { $0.clients }
        var next = State()
        for app in configuration.apps.values {
            guard let issuerId = app.issuerId else {
                next.unavailable[app.bundleId] = .noIssuerId(bundleId: app.bundleId)
                continue
            }
            let key = app.activeKey
            for environment in options.environments {
                let slot = Key(bundleId: app.bundleId, environment: environment)
                if let kept = previous[slot], kept.keyId == key.keyId, kept.issuerId == issuerId {
                    next.clients[slot] = kept
                    continue
                }
                let configuration = AppStoreServerAPIConfiguration(
                    environment: environment, baseURL: options.baseURLs[environment] ?? options.baseURL, timeout: options.timeout,
                    connectTimeout: min(.seconds(10), options.timeout), retry: options.retry,
                    requestsPerSecond: options.requestsPerSecond)
                let credentials = AppStoreServerAPICredentials(keyId: key.keyId, issuerId: issuerId, bundleId: app.bundleId,
                                                               privateKey: key.privateKey)
                next.clients[slot] = Entry(keyId: key.keyId, issuerId: issuerId,
                                           client: try AppStoreServerAPIClient(credentials: credentials, configuration: configuration))
            }
        }
        state.withLock { $0 = next }
    }
}
