/// The outcome of a request to extend the renewal date of many subscriptions
/// (Apple's `summary`, in `RENEWAL_EXTENSION` notifications with subtype `SUMMARY`).
///
/// [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary)
public struct NotificationSummary: Codable, Hashable, Sendable {
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String?
    /// The app's App Store identifier.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product whose subscriptions were extended.
    public var productId: String?
    /// The identifier the developer gave the extension request.
    public var requestIdentifier: String?
    /// The storefronts the request covered.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions were extended.
    public var succeededCount: Int64?
    /// How many subscriptions could not be extended.
    public var failedCount: Int64?

    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case appAppleId, bundleId, productId, requestIdentifier, storefrontCountryCodes
        case succeededCount, failedCount
    }
}
